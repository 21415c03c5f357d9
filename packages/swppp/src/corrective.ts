// Corrective-action deadlines: from the day a problem was found and the site's corrective.*
// requirements to a due date per rule, each with the rule it rests on. A rule with no usable
// value gives no date, and a permit with no such rule held gives a marked blank, never a number.
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { addDays, assertDate, daysForHours, nextWeekday } from "./dates.js";
import { authorityOf, heldRules, type Authority, type HeldRule } from "./rules-held.js";
import { say } from "./texts.js";

export interface CorrectiveDeadline {
  rule: HeldRule;
  due: string | null;
  words: string;
}

export interface CorrectiveDeadlines {
  foundOn: string;
  authority: Authority;
  deadlines: CorrectiveDeadline[];
  /** Set where no corrective.* rule is held: the plain statement with its blank. */
  notHeld: string | null;
}

const BUSINESS_DAY = /^close of (the )?next business day$/i;

function deadline(foundOn: string, rule: HeldRule): CorrectiveDeadline {
  const v = rule.value;
  if (v === null) return { rule, due: null, words: say.correctiveNoValue };
  if (typeof v === "string") {
    if (BUSINESS_DAY.test(v.trim())) return { rule, due: nextWeekday(foundOn), words: say.correctiveBusinessDay };
    return { rule, due: null, words: say.correctiveWords(v) };
  }
  if (rule.unit === "calendar days" || rule.unit === "days") return { rule, due: addDays(foundOn, v), words: say.correctiveDays(v, rule.unit) };
  if (rule.unit === "hours") return { rule, due: addDays(foundOn, daysForHours(v)), words: say.correctiveHours(v) };
  return { rule, due: null, words: say.unitNotKnown(v) };
}

export function correctiveActionDeadlines(input: { determination: Determination; foundOn: string }): CorrectiveDeadlines {
  assertDate(input.foundOn, "the date the problem was found");
  const a = authorityOf(input.determination);
  const rules = heldRules(input.determination).filter((r) => r.id.startsWith("corrective."));
  return {
    foundOn: input.foundOn,
    authority: a,
    deadlines: rules.map((r) => deadline(input.foundOn, r)),
    notHeld: rules.length === 0 ? say.correctiveNotHeld(a) : null,
  };
}
