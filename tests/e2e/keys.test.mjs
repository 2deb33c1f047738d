// The official openai client against `infergate serve` with virtual keys: the SDK's own error
// classes for a bad key, a forbidden model and a rate limit, and the rate-limit headers it exposes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';

const BIN = process.env.INFERGATE_BIN ?? '../../build/src/cli/infergate';
const MASTER = 'e2e-master-key-0123456789';

function start(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, [command, '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    proc.on('error', reject);
    createInterface({ input: proc.stdout }).once('line', (url) => resolve({ proc, url }));
  });
}

let dir;
let sim;
let gateway;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'infergate-e2e-keys-'));
  sim = await start('sim', ['--speedup', '50']);
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, `auth:\n  master_key: \${IG_E2E_MASTER}\n  keys_db: ${join(dir, 'keys.db')}\n`
    + `providers:\n  sim: {base_url: '${sim.url}/v1'}\n`
    + 'models:\n  gemma: {deployments: [{provider: sim, model: gemma-4-31b}]}\n'
    + '  other: {deployments: [{provider: sim, model: gemma-4-31b}]}\n');
  gateway = await start('serve', ['--config', config, '--threads', '1'], { IG_E2E_MASTER: MASTER });
});

// Resolves once `proc` has exited after a SIGTERM.
function stop(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) {
    return Promise.resolve();
  }
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill();
  return exited;
}

after(async () => {
  // The gateway writes its usage ledger into `dir` as it drains: the folder goes once it is done.
  await Promise.all([stop(gateway.proc), stop(sim.proc)]);
  rmSync(dir, { recursive: true, force: true });
});

async function createKey(settings) {
  const response = await fetch(`${gateway.url}/admin/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${MASTER}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(settings),
  });
  assert.equal(response.status, 201);
  return (await response.json()).key;
}

const client = (apiKey) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0 });
const ask = (apiKey, model = 'gemma') => client(apiKey).chat.completions
  .create({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 3 })
  .withResponse();

test('openai: a valid key works and sees its rate-limit headers', async () => {
  const key = await createKey({ rpm: 5, tpm: 100000, models: ['gemma'] });
  const { data, response } = await ask(key);
  assert.equal(data.usage.completion_tokens, 3);
  assert.equal(response.headers.get('x-ratelimit-limit-requests'), '5');
  assert.equal(response.headers.get('x-ratelimit-remaining-requests'), '4');
  assert.equal(response.headers.get('x-ratelimit-limit-tokens'), '100000');
  const models = await client(key).models.list();
  assert.deepEqual(models.data.map((m) => m.id), ['gemma']);
  assert.equal((await client(key).models.retrieve('gemma')).id, 'gemma');
  // A model the key may not use is one it does not see, as the list shows.
  await assert.rejects(client(key).models.retrieve('other'), (e) => e instanceof OpenAI.NotFoundError);
});

test('openai: bad keys raise AuthenticationError, a forbidden model PermissionDeniedError', async () => {
  await assert.rejects(ask('ig-nonsense'), (e) => e instanceof OpenAI.AuthenticationError && e.code === 'invalid_api_key');
  const key = await createKey({ models: ['gemma'] });
  await assert.rejects(ask(key, 'other'),
    (e) => e instanceof OpenAI.PermissionDeniedError && e.code === 'model_not_allowed');
});

test('openai: over the RPM, RateLimitError with Retry-After', async () => {
  const key = await createKey({ rpm: 1 });
  const now = Date.now() % 60000;
  if (now > 57000) await new Promise((r) => setTimeout(r, 60000 - now + 50));
  await ask(key);
  await assert.rejects(ask(key), (e) => {
    assert.ok(e instanceof OpenAI.RateLimitError);
    assert.equal(e.code, 'rate_limit_exceeded');
    const retryAfter = typeof e.headers?.get === 'function' ? e.headers.get('retry-after') : e.headers?.['retry-after'];
    assert.ok(Number(retryAfter) >= 1);
    return true;
  });
});
