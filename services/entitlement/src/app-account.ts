// The app's sign-in (issue 40): which account a stormwater key belongs to and what its plan lets it
// do there. An account is the subscription a checkout created (its live and test keys share it);
// a key issued on its own by `npm run keys` is an account of its own. A live key of an active
// Pro or Scale plan opens the workspace; the live key of a cancelled subscription (revoked when it
// ended, checkout.ts) opens it read-only, since records outlive the plan; every other valid key
// is told the app is not in its plan. The key is found by its hash (authenticate.ts), never logged.
import { AppAccess, Plan, type ResolveAccountResponse } from "@permits/proto/entitlement/v1/entitlement";
import { Surface } from "@permits/proto/common/v1/common";
import type { Authenticator } from "./authenticate.js";
import type { EntitlementStore } from "./store.js";
import { isActiveStatus } from "./provider.js";

type Answer = Omit<ResolveAccountResponse, "$typeName" | "$unknown">;

const NOT_INCLUDED: Answer = { accountId: "", plan: Plan.UNSPECIFIED, access: AppAccess.NOT_INCLUDED, keyId: "" };

export async function resolveAccount(auth: Authenticator, store: EntitlementStore, req: { apiKey: string; keyId: string }): Promise<Answer> {
  const { apiKey, keyId } = req;
  if (!keyId && (auth.isSandboxKey(apiKey) || auth.isLegacyKey(apiKey))) return NOT_INCLUDED;
  // A session's key is found by its id (the gateway holds no secret after sign-in).
  const key = keyId ? await store.getKey(keyId) : await auth.storedKeyOf(apiKey);
  if (!key) throw auth.refuse(Surface.STORMWATER, "unknown");
  const checkout = store.checkout();
  if (key.kind !== "live") return { ...NOT_INCLUDED, keyId: key.id };
  const plan = key.plan === "scale" ? Plan.SCALE : Plan.PRO;
  const fulfilment = await checkout.fulfilmentOfKey(key.id);
  const accountId = fulfilment ? `sub:${fulfilment.subscriptionId}` : `key:${key.id}`;
  if (key.revokedAt === null) return { accountId, plan, access: AppAccess.WORKSPACE, keyId: key.id };
  // Revoked: read-only only when its subscription has ended; a key revoked by the operator (a
  // leaked key, replaced while the plan runs) opens nothing.
  if (fulfilment) {
    const lookup = await auth.lookupSubscription(fulfilment.subscriptionId);
    if (lookup.found && !isActiveStatus(lookup.status)) return { accountId, plan, access: AppAccess.READ_ONLY, keyId: key.id };
  }
  throw auth.refuse(Surface.STORMWATER, "revoked", key.id);
}
