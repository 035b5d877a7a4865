// The operator's sign-in page: one form posting the token, or a line saying why there is none. Static text only.

export type SignInState = 'form' | 'wrong' | 'signed-in' | 'open';

const MESSAGES: Record<SignInState, string> = {
  form: 'Operators see the fleet and its readings. Paste an operator token (one line of OPERATOR_TOKENS_FILE).',
  wrong: 'That is not an operator token. Paste a line of OPERATOR_TOKENS_FILE.',
  'signed-in': 'You are signed in as an operator: the status page shows the fleet and its readings.',
  open: 'Local mode (NODE_ENV=local): everyone sees the fleet and its readings; there is nothing to sign in to.',
};

const FORM = `<form method="post" action="/sign-in" class="sign-in">
      <label for="token">Operator token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" required>
      <button type="submit">Sign in</button>
    </form>`;

const SIGN_OUT = `<form method="post" action="/sign-out" class="sign-in">
      <button type="submit">Sign out</button>
    </form>`;

export function signInPage(state: SignInState): string {
  const form = state === 'form' || state === 'wrong' ? FORM : state === 'signed-in' ? SIGN_OUT : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>Operator sign-in · System status</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/style.css">
</head>
<body>
  <main class="board">
    <section class="panel" aria-labelledby="title-sign-in">
      <h1 id="title-sign-in">Operator sign-in</h1>
      <p id="sign-in-message" data-state="${state}">${MESSAGES[state]}</p>
    ${form}
      <p><a href="/">Back to the status page</a></p>
    </section>
  </main>
</body>
</html>
`;
}
