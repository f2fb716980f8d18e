// The pages /oauth/authorize shows: the sign-in form and the error page. Plain server-rendered HTML: no script, no
// external asset, one inline style allowed by its hash, a strict Content-Security-Policy, never framed.
import { createHash } from 'node:crypto';

/** A button on the sign-in page for an external identity provider (./idp/ supplies them through SignInButtons). */
export interface SignInButton {
  /** The provider's name (shown when there is no title). */
  name: string;
  title?: string;
  /** Where the button goes; it carries the pending authorization so the login can continue it. */
  href: string;
}

const STYLE = `body{font:16px system-ui,sans-serif;background:#eef1f4;color:#242e42;margin:0}
main{max-width:22rem;margin:10vh auto;background:#fff;padding:2rem;border-radius:6px;box-shadow:0 4px 16px #0002}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .3rem;font-size:.9rem}
input,select{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #ccd3db;border-radius:4px}
button,a.idp{display:block;width:100%;box-sizing:border-box;margin-top:1.2rem;padding:.6rem;font-size:1rem;
border:0;border-radius:4px;background:#242e42;color:#fff;text-align:center;text-decoration:none;cursor:pointer}
a.idp{background:#55bc8a;margin-top:.6rem}p.error{color:#ca2621}p.client{color:#79879c;font-size:.9rem}`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Security headers of every page; `formTarget`: the origin a form's answer may redirect to (CSP form-action). */
export function pageHeaders(formTarget?: string): Record<string, string> {
  const formAction = formTarget ? `'self' ${formTarget}` : `'self'`;
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on the form's POST.
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

export function signInPage(opts: {
  clientId: string;
  pendingId: string;
  csrf: string;
  username?: string;
  error?: string;
  buttons: readonly SignInButton[];
  /** Password providers (LDAP) offered beside the local account, and the one selected ('' = local). */
  passwordProviders?: readonly string[];
  provider?: string;
}): string {
  const error = opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : '';
  const accounts = opts.passwordProviders?.length
    ? `<label for="provider">Account</label>
<select id="provider" name="provider">${[['', 'Local account'], ...opts.passwordProviders.map((p) => [p, p])]
        .map(
          ([value, label]) =>
            `<option value="${escapeHtml(value)}"${value === (opts.provider ?? '') ? ' selected' : ''}>${escapeHtml(label)}</option>`,
        )
        .join('')}</select>
`
    : '';
  const buttons = opts.buttons
    .map(
      (b) => `<a class="idp" href="${escapeHtml(b.href)}">Sign in with ${escapeHtml(b.title || b.name)}</a>`,
    )
    .join('\n');
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p class="client">to continue to ${escapeHtml(opts.clientId)}</p>
${error}<form method="post" action="/oauth/sign-in">
<input type="hidden" name="pending" value="${escapeHtml(opts.pendingId)}">
<input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
${accounts}<label for="username">Username or e-mail</label>
<input id="username" name="username" autocomplete="username" required autofocus value="${escapeHtml(opts.username ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${buttons}`,
  );
}

export function errorPage(error: string, description: string): string {
  return page(
    'Sign-in error',
    `<h1>This sign-in request cannot be completed</h1>
<p class="error" role="alert">${escapeHtml(error)}: ${escapeHtml(description)}</p>
<p class="client">Return to the application and try again.</p>`,
  );
}
