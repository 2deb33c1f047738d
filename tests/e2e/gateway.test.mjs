// The official openai and groq-sdk clients pointed at `infergate serve` in front of the simulator.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import Groq from 'groq-sdk';

const BIN = process.env.INFERGATE_BIN ?? '../../build/src/cli/infergate';

function start(command, args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, [command, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    proc.on('error', reject);
    createInterface({ input: proc.stdout }).once('line', (url) => resolve({ proc, url }));
  });
}

let sim;
let gateway;

before(async () => {
  sim = await start('sim', ['--speedup', '50']);
  gateway = await start('serve', ['--upstream', sim.url, '--threads', '1']);
});

after(() => {
  gateway.proc.kill();
  sim.proc.kill();
});

const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
const groq = () => new Groq({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });

test('openai: non-streamed completion through the gateway, with its request id', async () => {
  const { data, response } = await openai()
    .chat.completions.create({ model: 'gemma-4-31b', messages: [{ role: 'user', content: 'hi there' }], max_tokens: 6 })
    .withResponse();
  assert.equal(data.usage.completion_tokens, 6);
  assert.equal(data.choices[0].message.content.trim().split(/\s+/).length, 6);
  assert.match(response.headers.get('x-request-id'), /^[0-9a-f]{32}$/);
  assert.ok(Number(response.headers.get('x-infergate-overhead-us')) >= 0);
});

test('openai: streamed through the gateway; usage only when asked', async () => {
  const collect = async (extra) => {
    const stream = await openai().chat.completions.create({
      model: 'gemma-4-31b', messages: [{ role: 'user', content: 'stream it' }], max_tokens: 5, stream: true, ...extra,
    });
    let text = '';
    let usage = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    return { text, usage };
  };
  const plain = await collect({});
  assert.equal(plain.text.trim().split(/\s+/).length, 5);
  assert.equal(plain.usage, null);
  const asked = await collect({ stream_options: { include_usage: true } });
  assert.equal(asked.usage.completion_tokens, 5);
});

// The gateway's count of tokens out of the model, from its /metrics.
async function tokensOut() {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('infergate_tokens_total{direction="out",model="gemma-4-31b"}'));
  return line ? Number(line.split(' ')[1]) : 0;
}

test('openai: responses.create through the gateway, whole and streamed, its usage counted', async () => {
  const before = await tokensOut();
  const whole = await openai().responses.create({ model: 'gemma-4-31b', input: 'say six words', max_output_tokens: 6 });
  assert.equal(whole.object, 'response');
  assert.equal(whole.usage.output_tokens, 6);
  assert.equal(whole.output_text.trim().split(/\s+/).length, 6);
  const stream = await openai().responses.create({
    model: 'gemma-4-31b', instructions: 'be brief', input: [{ role: 'user', content: 'stream it' }],
    max_output_tokens: 4, stream: true,
  });
  let text = '';
  let usage = null;
  for await (const event of stream) {
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.incomplete' || event.type === 'response.completed') usage = event.response.usage;
  }
  assert.equal(text.trim().split(/\s+/).length, 4);
  assert.equal(usage.output_tokens, 4);
  assert.equal(usage.input_tokens, 4);  // the instructions' words and the input's
  const helper = openai().responses.stream({ model: 'gemma-4-31b', input: 'and again', max_output_tokens: 3 });
  const final = await helper.finalResponse();
  assert.equal(final.output_text.trim().split(/\s+/).length, 3);
  assert.equal(await tokensOut() - before, 6 + 4 + 3);  // the usage the gateway read from each answer
  await assert.rejects(openai().responses.retrieve('resp_1'),
    (err) => err instanceof OpenAI.NotFoundError && /lives on the upstream that made it/.test(err.message));
  await assert.rejects(
    openai().responses.create({ model: 'gemma-4-31b', input: 'and then?', previous_response_id: 'resp_1' }),
    (err) => err instanceof OpenAI.BadRequestError && err.param === 'previous_response_id');
});

test('openai: an agent turn through the gateway: a streamed tool call and its result sent back', async () => {
  const tools = [{
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  }];
  const messages = [{ role: 'user', content: 'what is the weather in Paris' }];
  const stream = openai().chat.completions.stream({
    model: 'gemma-4-31b', messages, tools, tool_choice: 'required', max_tokens: 1024,
    stream_options: { include_usage: true },
  });
  const first = await stream.finalChatCompletion();
  const call = first.choices[0].message.tool_calls[0];
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  assert.equal(call.function.name, 'get_weather');
  assert.ok(JSON.parse(call.function.arguments).city.length > 0);
  // The loop's next turn: the call and its result in the history; "auto" lets the model answer in text.
  const second = await openai().chat.completions.create({
    model: 'gemma-4-31b',
    messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' }],
    tools,
    tool_choice: 'auto',
    max_tokens: 8,
  });
  assert.equal(typeof second.choices[0].message.content, 'string');
  assert.ok(second.usage.prompt_tokens > first.usage.prompt_tokens + first.usage.completion_tokens);
});

test('openai: a Responses stream cut upstream ends with a typed error event on which the SDK raises', async () => {
  const broken = await start('sim', ['--speedup', '50', '--fault-reset-rate', '1', '--fault-reset-after', '2']);
  const front = await start('serve', ['--upstream', broken.url, '--threads', '1']);
  try {
    const client = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.responses.create({ model: 'gemma-4-31b', input: 'hi', max_output_tokens: 8, stream: true });
    const seen = [];
    await assert.rejects(
      (async () => { for await (const event of stream) seen.push(event.type); })(),
      (err) => err instanceof OpenAI.APIError && /failed mid-response/.test(err.message),
    );
    assert.ok(seen.includes('response.output_text.delta'), seen.join());  // the tokens before the cut arrived
    const raw = await fetch(`${front.url}/v1/responses`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'gemma-4-31b', input: 'hi', max_output_tokens: 8, stream: true }),
    });
    const last = (await raw.text()).trim().split('\n\n').pop();
    assert.match(last, /^event: error\ndata: \{"type":"error","code":"upstream_stream_error","message":"[^"]*failed mid-response/);
  } finally {
    front.proc.kill();
    broken.proc.kill();
  }
});

test('openai: embeddings.create through the gateway, base64 (the SDK default) and floats alike', async () => {
  const client = openai();
  const input = ['one two three', 'four five'];
  const packed = await client.embeddings.create({ model: 'gemma-4-31b', input });
  const floats = await client.embeddings.create({ model: 'gemma-4-31b', input, encoding_format: 'float' });
  assert.equal(packed.usage.prompt_tokens, 5);
  assert.deepEqual(packed.data.map((d) => d.index), [0, 1]);
  const norm = (v) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  for (const [i, item] of packed.data.entries()) {
    assert.equal(item.embedding.length, 5376);
    assert.ok(Math.abs(norm(item.embedding) - 1) < 1e-4);
    // The SDK decoded the float32 bytes the JSON floats name (each the shortest text of its float32).
    assert.deepEqual(item.embedding, floats.data[i].embedding.map(Math.fround));
  }
  const short = await client.embeddings.create({ model: 'gemma-4-31b', input: 'one two three', dimensions: 64 });
  assert.equal(short.data[0].embedding.length, 64);
  await assert.rejects(client.embeddings.create({ model: 'gemma-4-31b', input: '' }),
    (err) => err instanceof OpenAI.BadRequestError && err.param === 'input');
});

test('openai: unknown model is NotFoundError from the gateway', async () => {
  await assert.rejects(
    openai().chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
    (err) => err instanceof OpenAI.NotFoundError && err.code === 'model_not_found',
  );
});

test('openai: models.retrieve through the gateway; an unknown one is NotFoundError', async () => {
  const model = await openai().models.retrieve('gemma-4-31b');
  assert.equal(model.id, 'gemma-4-31b');
  assert.equal(model.object, 'model');
  await assert.rejects(openai().models.retrieve('org/nope'),
    (err) => err instanceof OpenAI.NotFoundError && err.code === 'model_not_found' && /'org\/nope'/.test(err.message));
});

test('openai: a base URL without /v1 gets a 404 that says so', async () => {
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
  await assert.rejects(
    client.chat.completions.create({ model: 'gemma-4-31b', messages: [{ role: 'user', content: 'x' }] }),
    (err) => err instanceof OpenAI.NotFoundError && /did you mean \/v1\/chat\/completions/.test(err.message),
  );
});

test('openai: a body over the limit is a 413 that names it, not a broken connection', async () => {
  const content = 'x'.repeat(16 << 20);
  await assert.rejects(
    openai().chat.completions.create({ model: 'gemma-4-31b', messages: [{ role: 'user', content }] }),
    (err) => err instanceof OpenAI.APIError && err.status === 413 && /larger than the limit/.test(err.message),
  );
});

test('groq-sdk: streamed and not, through the /openai/v1 path Groq clients use', async () => {
  const whole = await groq().chat.completions.create({
    model: 'gemma-4-31b', messages: [{ role: 'user', content: 'hello' }], max_tokens: 3,
  });
  assert.equal(whole.usage.completion_tokens, 3);
  const stream = await groq().chat.completions.create({
    model: 'gemma-4-31b', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4, stream: true,
  });
  let text = '';
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  assert.equal(text.trim().split(/\s+/).length, 4);
});

test('groq-sdk: a bad request surfaces as BadRequestError with the status', async () => {
  await assert.rejects(
    groq().chat.completions.create({ model: 'gemma-4-31b', messages: [{ role: 'user', content: 'x' }], max_tokens: 'ten' }),
    (err) => err instanceof Groq.BadRequestError && err.status === 400,
  );
});
