// The entitlement service's checkout RPCs as these routes call them: their ConnectErrors in the
// contract's words.
import { Code, ConnectError } from "@connectrpc/connect";
import { Problem } from "../../http/problems.js";

function checkoutProblem(e: unknown): unknown {
  if (!(e instanceof ConnectError)) return e;
  if (e.code === Code.FailedPrecondition) return new Problem("not_found", e.rawMessage);
  if (e.code === Code.Unauthenticated) return new Problem("invalid_api_key", "The key is not a key issued at checkout on this server.");
  return e;
}

/** Awaits a checkout RPC; its refusals become the caller's Problems (other errors pass through). */
export async function checkoutCall<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw checkoutProblem(e);
  }
}
