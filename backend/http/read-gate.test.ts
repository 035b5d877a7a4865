// The read gate alone, on a bare Hono app: which Authorization headers reach the handler, and what every other
// request gets (401, one line, the RFC 6750 challenge, no-store).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import { createReadGate, type SetTokens } from './read-gate.ts';

const FIRST = 'read-token-first-0123456789abcdef';
const LAST = 'read-token-last-fedcba9876543210';

function gated(tokens: readonly string[]) {
  const app = new Hono();
  app.get('/api/readings', createReadGate(tokens), (c) => c.json({ readings: ['listed'] }));
  return (authorization?: string) =>
    app.request('/api/readings', authorization === undefined ? {} : { headers: { authorization } });
}

const REALM = 'Bearer realm="device data"';
const REQUIRED = 'a read token is required: send Authorization: Bearer <token> (READ_TOKENS on the backend)';

async function refusal(res: Response) {
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    cache: res.headers.get('cache-control'),
    body: await res.text(),
  };
}

test('each listed token gets in, the first and the last of the list alike', async () => {
  const read = gated([FIRST, LAST]);
  for (const token of [FIRST, LAST]) {
    const res = await read(`Bearer ${token}`);
    assert.is(res.status, 200, token);
    assert.equal(await res.json(), { readings: ['listed'] });
  }
});

test('the scheme in any case, spaces after it and after the token: still the token', async () => {
  const read = gated([FIRST]);
  for (const header of [`bearer ${FIRST}`, `BEARER ${FIRST}`, `Bearer   ${FIRST}`, `Bearer ${FIRST}  `])
    assert.is((await read(header)).status, 200, JSON.stringify(header));
});

test('no credential, another scheme or a malformed one: 401 with the bare challenge and how to send it', async () => {
  const read = gated([FIRST]);
  const malformed = [
    undefined,
    '',
    `Basic ${FIRST}`,
    `Bearer${FIRST}`,
    `Bearer ${FIRST} extra`,
    `xBearer ${FIRST}`,
    `Bearer ${FIRST}\tx`,
    'Bearer ',
    FIRST,
  ];
  for (const header of malformed) {
    assert.equal(
      await refusal(await read(header)),
      { status: 401, challenge: REALM, cache: 'no-store', body: JSON.stringify({ error: REQUIRED }) },
      JSON.stringify(header),
    );
  }
});

test('a wrong, truncated, stretched or other-case token: 401 invalid_token, nothing listed', async () => {
  const read = gated([FIRST, LAST]);
  for (const token of [FIRST.slice(0, -1), `${FIRST}x`, FIRST.toUpperCase(), `${FIRST}${LAST}`, 'x']) {
    assert.equal(
      await refusal(await read(`Bearer ${token}`)),
      {
        status: 401,
        challenge: `${REALM}, error="invalid_token"`,
        cache: 'no-store',
        body: JSON.stringify({ error: 'the read token is not valid' }),
      },
      token,
    );
  }
});

test('no tokens configured: every request is refused, even one that sends a token', async () => {
  const read = gated([]);
  assert.is((await read(`Bearer ${FIRST}`)).status, 401);
  assert.is((await read()).status, 401);
});

test('an empty token in the list opens nothing: a request with no credential is still refused', async () => {
  // READ_TOKENS drops blank lines, but the gate does not rely on it: a missing header hashes like an empty token.
  const read = gated(['', FIRST]);
  assert.is((await read()).status, 401);
  assert.is((await read('Bearer ')).status, 401);
});

test('a token of any characters is compared whole: one that differs past ASCII is refused', async () => {
  const read = gated(['read-token-é-0123456789abcdef']);
  assert.is((await read('Bearer read-token-é-0123456789abcdef')).status, 200);
  assert.is((await read('Bearer read-token-e-0123456789abcdef')).status, 401);
});

test('a reload replaces the list: a removed token is refused from then on, the kept one gets in', async () => {
  let setTokens: SetTokens = () => {};
  const app = new Hono();
  const gate = createReadGate([FIRST, LAST], (set) => (setTokens = set));
  app.get('/api/readings', gate, (c) => c.json({ readings: ['listed'] }));
  const read = (token: string) => app.request('/api/readings', { headers: { authorization: `Bearer ${token}` } });
  assert.is((await read(FIRST)).status, 200);
  setTokens([LAST]);
  assert.is((await read(FIRST)).status, 401);
  assert.is((await read(LAST)).status, 200);
});

test.run();
