// A signed-in visitor of /app: a cookie jar, the CSRF token of the last page, and urlencoded and
// multipart posts as a browser sends them; to the app in this process (inject()) or, through
// `overHttp`, to a gateway process over real HTTP.
import type { LightMyRequestResponse } from "fastify";

/** One request as the visitor sends it. */
interface AppRequest {
  method: "GET" | "POST";
  url: string;
  payload?: string | Buffer;
  headers: Record<string, string>;
  remoteAddress: string;
}

/** Where the visitor's requests go: a FastifyInstance (inject()), or `overHttp(baseUrl)`. */
export interface AppTarget {
  inject(req: AppRequest): Promise<LightMyRequestResponse>;
}

/**
 * A gateway process at `baseUrl`, answering as inject() does (status, headers, body, the cookies
 * set). Every request comes from the loopback address, whatever the visitor's own.
 */
export function overHttp(baseUrl: string): AppTarget {
  return {
    async inject({ method, url, payload, headers }) {
      const res = await fetch(new URL(url, baseUrl), { method, body: payload, headers, redirect: "manual" });
      const rawPayload = Buffer.from(await res.arrayBuffer());
      const body = rawPayload.toString("utf8");
      const answer = {
        statusCode: res.status,
        headers: Object.fromEntries(res.headers),
        rawPayload,
        body,
        cookies: res.headers.getSetCookie().map(parseSetCookie),
        json: () => JSON.parse(body),
      };
      return answer as unknown as LightMyRequestResponse;
    },
  };
}

/** The parts of a Set-Cookie header the visitor's jar reads. */
function parseSetCookie(line: string): { name: string; value: string; maxAge?: number; expires?: Date } {
  const [pair, ...attributes] = line.split(";").map((p) => p.trim());
  const eq = pair.indexOf("=");
  const cookie: { name: string; value: string; maxAge?: number; expires?: Date } = { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
  for (const a of attributes) {
    const [k, v = ""] = a.split("=");
    if (k.toLowerCase() === "max-age") cookie.maxAge = Number(v);
    if (k.toLowerCase() === "expires") cookie.expires = new Date(a.slice(a.indexOf("=") + 1));
  }
  return cookie;
}

let nextAddress = 1;

export class AppVisitor {
  readonly cookies: Map<string, string>;
  token = "";
  /** Each visitor has its own address, so sign-in limits per address do not mix. */
  readonly address: string;

  /** `browser`: the same browser (its cookies, its address) reaching this gateway, as a load balancer may send it. */
  constructor(
    private readonly app: AppTarget,
    browser?: AppVisitor,
  ) {
    this.cookies = browser?.cookies ?? new Map<string, string>();
    this.address = browser?.address ?? `198.51.100.${nextAddress++}`;
  }

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      if (c.value === "" || c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (m) this.token = m[1];
    return res;
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(await this.app.inject({ method: "GET", url, headers: { cookie: this.cookieHeader() }, remoteAddress: this.address }));
  }

  /** A urlencoded form; the page's CSRF token is added unless `csrf: false`. */
  async post(url: string, fields: Record<string, string>, opts: { csrf?: boolean } = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams({ ...(opts.csrf === false ? {} : { _csrf: this.token }), ...fields }).toString();
    return this.remember(await this.app.inject({ method: "POST", url, payload: body, headers: { cookie: this.cookieHeader(), "content-type": "application/x-www-form-urlencoded" }, remoteAddress: this.address }));
  }

  /** A multipart form with files, as a browser sends a form with enctype multipart/form-data. */
  async postMultipart(url: string, fields: Record<string, string>, files: { field: string; filename: string; type: string; bytes: Buffer }[]): Promise<LightMyRequestResponse> {
    const boundary = "----apptest" + Math.random().toString(16).slice(2);
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries({ _csrf: this.token, ...fields })) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    for (const f of files) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.filename}"\r\nContent-Type: ${f.type}\r\n\r\n`), f.bytes, Buffer.from("\r\n"));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return this.remember(await this.app.inject({ method: "POST", url, payload: Buffer.concat(parts), headers: { cookie: this.cookieHeader(), "content-type": `multipart/form-data; boundary=${boundary}` }, remoteAddress: this.address }));
  }

  async signIn(apiKey: string): Promise<LightMyRequestResponse> {
    await this.get("/app");
    return this.post("/app/session", { api_key: apiKey });
  }
}

/** A tiny valid PNG (1x1). */
export const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");
