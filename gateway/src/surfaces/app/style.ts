// The app's one stylesheet: plain CSS, readable on a phone at a site (390 px) and on a desktop.
import type { FastifyPluginAsync } from "fastify";

export const APP_CSS = `*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:break-word;margin:0;color:#1a1a1a;background:#fff;line-height:1.5;font-size:1rem}
header{background:#0b3d5c;padding:.6rem 1rem}
header nav{max-width:60rem;margin:0 auto;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
header a,header .link{color:#fff}
header .brand{font-weight:700;text-decoration:none;margin-right:auto}
main{max-width:60rem;margin:0 auto;padding:1rem}
footer{max-width:60rem;margin:2rem auto;padding:0 1rem;color:#444}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:1.75rem 0 .5rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.25rem 0 .25rem}
a{color:#0b5394}
.banner{background:#fff4ce;border-bottom:1px solid #d9b400;margin:0;padding:.6rem 1rem;text-align:center}
.notice{background:#eef4fa;border-left:4px solid #0b5394;padding:.5rem .75rem;margin:.75rem 0}
blockquote.notice{margin:.75rem 0}
.error-summary,.field-error{color:#a00000}
.error-summary{border:2px solid #a00000;padding:.5rem .75rem}
.unverified{background:#fff0c2;color:#5a4300;font-weight:600;padding:0 .3rem;border-radius:3px;white-space:nowrap}
.verified{color:#1d5e20;font-weight:600}
.overdue{color:#a00000;font-weight:700}
.muted{color:#555}
form.inline{display:inline;margin:0}
button,.button{font:inherit;font-size:1rem;padding:.55rem 1rem;border:1px solid #0b3d5c;background:#0b3d5c;color:#fff;border-radius:4px;cursor:pointer;text-decoration:none;display:inline-block}
button.link{background:none;border:none;padding:0;text-decoration:underline;cursor:pointer}
button.secondary,.button.secondary{background:#fff;color:#0b3d5c}
label{display:block;font-weight:600;margin-top:.9rem}
.hint{display:block;font-weight:400;color:#555;font-size:.92rem}
input,select,textarea{font:inherit;font-size:1rem;width:100%;max-width:32rem;padding:.45rem;border:1px solid #767676;border-radius:4px;margin-top:.2rem}
input[type=checkbox],input[type=radio]{width:auto}
textarea{min-height:4.5rem}
fieldset{border:1px solid #ccc;margin:1rem 0;padding:.5rem 1rem 1rem;max-width:40rem}
legend{font-weight:700}
summary{cursor:pointer;color:#0b5394;text-decoration:underline;margin:.4rem 0}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;vertical-align:top;border-bottom:1px solid #ddd;padding:.4rem .5rem}
.cards{list-style:none;padding:0}
.cards li{border:1px solid #ccc;border-radius:6px;padding:.6rem .8rem;margin:.5rem 0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}
table.stack th:first-child{width:24%}
@media (max-width:40rem){
  td,th{overflow-wrap:anywhere}
  table.stack thead{display:none}
  table.stack tr{display:block;border:1px solid #ccc;border-radius:6px;margin:.5rem 0;padding:.3rem}
  table.stack td{display:block;border:none;padding:.2rem .4rem}
  table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
}
`;

export const APP_STYLE_PATH = "/app/style.css";

/** GET /app/style.css: one file, cached for an hour. */
export const appStyle: FastifyPluginAsync = async (app) => {
  app.get(APP_STYLE_PATH, async (_req, reply) => reply.header("cache-control", "public, max-age=3600").type("text/css; charset=utf-8").send(APP_CSS));
};
