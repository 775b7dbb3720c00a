/**
 * The stylesheet of the authorization pages, inlined in one `<style>` block
 * and allowed by its SHA-256 in the Content-Security-Policy (no
 * 'unsafe-inline', no style attributes, no scripts at all).
 */
import { createHash } from "node:crypto";

export const stylesheet = `
:root {
  color-scheme: light;
  --ink: #0f172a;
  --muted: #475569;
  --line: #e2e8f0;
  --field: #94a3b8;
  --brand: #1d4ed8;
  --brand-dark: #1e3a8a;
  --focus: #2563eb;
  --danger: #b91c1c;
  --danger-bg: #fef2f2;
  --ok: #047857;
  --ok-bg: #d1fae5;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  min-height: 100vh;
  display: flex;
  flex-direction: column;
  align-items: center;
  padding: 48px 16px 32px;
  background: radial-gradient(circle at 50% -20%, #dbeafe 0, #eef2ff 35%, #f8fafc 70%);
  color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
.brand { display: flex; align-items: center; gap: 10px; margin-bottom: 24px; font-weight: 650; letter-spacing: -0.01em; }
.brand-mark {
  width: 34px; height: 34px; border-radius: 9px; display: grid; place-items: center;
  background: linear-gradient(135deg, var(--brand), #4f46e5); color: #fff; font-weight: 800; font-size: 15px;
  box-shadow: 0 4px 12px rgba(29, 78, 216, 0.35);
}
main.card {
  width: 100%; max-width: 460px; background: #fff; border: 1px solid var(--line); border-radius: 18px;
  padding: 32px; box-shadow: 0 1px 2px rgba(15, 23, 42, 0.04), 0 16px 40px rgba(15, 23, 42, 0.08);
}
h1 { font-size: 1.375rem; line-height: 1.3; margin: 0 0 6px; letter-spacing: -0.015em; }
.lead { color: var(--muted); margin: 0 0 24px; }
.app { display: flex; align-items: center; gap: 14px; margin-bottom: 20px; }
.app-icon {
  flex: none; width: 48px; height: 48px; border-radius: 13px; display: grid; place-items: center;
  background: #e0e7ff; color: #3730a3; font-weight: 750; font-size: 1.25rem;
}
.app-name { font-weight: 650; }
.app-meta { color: var(--muted); font-size: 0.875rem; }
label { display: block; font-weight: 600; font-size: 0.9rem; margin: 18px 0 6px; }
input[type="email"], input[type="password"] {
  width: 100%; padding: 11px 13px; font: inherit; color: var(--ink); background: #fff;
  border: 1px solid var(--field); border-radius: 10px; transition: border-color 0.15s, box-shadow 0.15s;
}
input[type="email"]:hover, input[type="password"]:hover { border-color: #64748b; }
input[aria-invalid="true"] { border-color: var(--danger); }
input:focus-visible { outline: none; border-color: var(--focus); box-shadow: 0 0 0 3px rgba(37, 99, 235, 0.3); }
.button {
  display: inline-flex; align-items: center; justify-content: center; width: 100%; min-height: 46px;
  padding: 10px 18px; border-radius: 10px; border: 1px solid transparent; font: inherit; font-weight: 600;
  cursor: pointer; text-decoration: none; transition: background-color 0.15s, border-color 0.15s;
}
.button:focus-visible, .link-button:focus-visible, a:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.primary { background: var(--brand); color: #fff; }
.primary:hover { background: var(--brand-dark); }
.secondary { background: #fff; color: var(--ink); border-color: #cbd5e1; }
.secondary:hover { background: #f1f5f9; }
.stack { display: grid; gap: 12px; margin-top: 26px; }
.actions { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-top: 26px; }
.alert {
  display: flex; gap: 10px; padding: 12px 14px; margin: 0 0 20px; border-radius: 10px;
  background: var(--danger-bg); border: 1px solid #fecaca; color: var(--danger); font-size: 0.925rem;
}
.account {
  margin-top: 16px; display: flex; align-items: center; justify-content: space-between; gap: 12px; flex-wrap: wrap;
  padding: 10px 14px; border-radius: 10px; background: #f8fafc; border: 1px solid var(--line); font-size: 0.9rem;
}
.account strong { overflow-wrap: anywhere; }
.link-button {
  padding: 0; border: 0; background: none; color: var(--brand); font: inherit; font-weight: 600;
  text-decoration: underline; text-underline-offset: 2px; cursor: pointer;
}
.link-button:hover { color: var(--brand-dark); }
h2 { font-size: 0.95rem; margin: 24px 0 10px; }
.scopes { list-style: none; margin: 0; padding: 0; border: 1px solid var(--line); border-radius: 12px; }
.scopes li { display: flex; gap: 12px; padding: 12px 14px; border-top: 1px solid var(--line); }
.scopes li:first-child { border-top: 0; }
.check {
  flex: none; width: 22px; height: 22px; margin-top: 1px; border-radius: 50%; display: grid; place-items: center;
  background: var(--ok-bg); color: var(--ok); font-size: 0.75rem; font-weight: 800;
}
.scope-text { display: flex; flex-direction: column; }
.scope-code { color: var(--muted); font: 0.8rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.note { margin: 18px 0 0; color: var(--muted); font-size: 0.85rem; }
.note strong { color: var(--ink); overflow-wrap: anywhere; }
.error-code {
  display: inline-block; margin: 4px 0 16px; padding: 3px 8px; border-radius: 6px; background: #f1f5f9;
  font: 0.85rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
footer { margin-top: 28px; color: var(--muted); font-size: 0.8rem; text-align: center; }
@media (max-width: 480px) {
  main.card { padding: 24px 20px; border-radius: 14px; }
  .actions { grid-template-columns: 1fr; }
}
@media (prefers-reduced-motion: reduce) { * { transition: none !important; } }
`;

/** The CSP source expression that allows exactly this stylesheet. */
export const stylesheetHash = `'sha256-${createHash("sha256").update(stylesheet, "utf8").digest("base64")}'`;
