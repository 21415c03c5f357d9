// The plans the entitlement service sells at checkout, read once it answers: the /pricing page's
// buy section and the local pages ask it which provider is in use.
import type { ConnectError } from "@connectrpc/connect";
import type { CheckoutPlan } from "@permits/proto/entitlement/v1/entitlement";
import type { AppDeps } from "../../deps.js";

/** The plans as the entitlement service sells them, read once it answers (retried until then). */
export class CheckoutCatalogue {
  private loaded?: { provider: string; plans: CheckoutPlan[] };
  constructor(
    private readonly deps: AppDeps,
    /** Local checkout gives keys away: only a gateway bound to loopback serves it. */
    readonly loopbackOnly: boolean,
  ) {}

  async read(): Promise<{ provider: string; plans: CheckoutPlan[] } | undefined> {
    if (this.loaded) return this.loaded;
    try {
      const res = await this.deps.clients.entitlement.getCheckoutPlans({});
      this.loaded = { provider: res.provider, plans: res.plans };
      return this.loaded;
    } catch (e) {
      this.deps.logger.warn({ err: { name: (e as Error).name, code: (e as ConnectError).code } }, "checkout plans could not be read");
      return undefined;
    }
  }

  /** Whether the local provider's pages are refused here (non-loopback HOST). */
  localRefused(provider: string | undefined): boolean {
    return provider === "local" && !this.loopbackOnly;
  }
}
