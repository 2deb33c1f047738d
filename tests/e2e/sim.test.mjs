// The official openai SDK as a real client of `infergate sim`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';

const BIN = process.env.INFERGATE_BIN ?? '../../build/src/cli/infergate';

function startSim(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, ['sim', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    proc.on('error', reject);
    createInterface({ input: proc.stdout }).once('line', (url) => resolve({ proc, url }));
  });
}

let sim;
let keyed;
let choosing;

before(async () => {
  sim = await startSim(['--speedup', '50']);
  keyed = await startSim(['--speedup', '50', '--api-key', 'right-key']);
  choosing = await startSim(['--speedup', '50', '--tool-call-share', '0.5']);
});

after(() => {
  sim.proc.kill();
  keyed.proc.kill();
  choosing.proc.kill();
});

const client = () => new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'unused', maxRetries: 0 });

test('lists the served model', async () => {
  const models = await client().models.list();
  assert.deepEqual(models.data.map((m) => m.id), ['gemma-4-31b']);
  assert.equal((await client().models.retrieve('gemma-4-31b')).owned_by, 'infergate-sim');
});

test('responses.create, whole and streamed, as OpenAI words them', async () => {
  const whole = await client().responses.create({ model: 'gemma-4-31b', input: 'say five words please', max_output_tokens: 5 });
  assert.equal(whole.status, 'incomplete');
  assert.equal(whole.incomplete_details.reason, 'max_output_tokens');
  assert.equal(whole.usage.input_tokens, 4);
  assert.equal(whole.usage.output_tokens, 5);
  assert.equal(whole.output_text.trim().split(/\s+/).length, 5);
  const stream = client().responses.stream({ model: 'gemma-4-31b', input: 'say five words please', max_output_tokens: 5 });
  let deltas = '';
  stream.on('response.output_text.delta', (event) => { deltas += event.delta; });
  const final = await stream.finalResponse();
  assert.equal(deltas, whole.output_text);  // the same prompt, the same words
  assert.equal(final.output_text, whole.output_text);
  assert.equal(final.usage.output_tokens, 5);
});

test('non-streamed chat completion with usage', async () => {
  const completion = await client().chat.completions.create({
    model: 'gemma-4-31b',
    messages: [{ role: 'user', content: 'say five words please' }],
    max_tokens: 5,
  });
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.choices[0].message.role, 'assistant');
  assert.equal(completion.choices[0].message.content.trim().split(/\s+/).length, 5);
  assert.equal(completion.choices[0].finish_reason, 'length');
  assert.deepEqual(completion.usage, { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 });
});

test('streamed chat completion: text, finish reason and a final usage chunk', async () => {
  const stream = await client().chat.completions.create({
    model: 'gemma-4-31b',
    messages: [{ role: 'user', content: 'stream please' }],
    max_tokens: 12,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let finish = null;
  let usage = null;
  for await (const chunk of stream) {
    if (chunk.choices.length > 0) {
      text += chunk.choices[0].delta.content ?? '';
      finish = chunk.choices[0].finish_reason ?? finish;
    }
    if (chunk.usage) {
      usage = chunk.usage;
    }
  }
  assert.equal(text.trim().split(/\s+/).length, 12);
  assert.equal(finish, 'length');
  assert.equal(usage.completion_tokens, 12);
  assert.equal(usage.prompt_tokens, 2);
});

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

test('a forced tool call, whole and streamed, as the SDK assembles it', async () => {
  const request = {
    model: 'gemma-4-31b',
    messages: [{ role: 'user', content: 'what is the weather in Paris' }],
    tools: [weatherTool],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    max_tokens: 1024,  // past the simulator's natural length: the call ends on its own
  };
  const whole = await client().chat.completions.create(request);
  const message = whole.choices[0].message;
  assert.equal(whole.choices[0].finish_reason, 'tool_calls');
  assert.equal(message.content, null);
  assert.equal(message.tool_calls.length, 1);
  assert.equal(message.tool_calls[0].function.name, 'get_weather');
  const args = JSON.parse(message.tool_calls[0].function.arguments);
  assert.deepEqual(Object.keys(args), ['city']);
  assert.equal(args.city.trim().split(/\s+/).length, whole.usage.completion_tokens);
  // The SDK's stream helper puts the call back together from its deltas.
  const stream = client().chat.completions.stream({ ...request, stream_options: { include_usage: true } });
  let pieces = 0;
  stream.on('tool_calls.function.arguments.delta', () => { pieces += 1; });
  const final = await stream.finalChatCompletion();
  assert.equal(final.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(final.choices[0].message.tool_calls[0].function, message.tool_calls[0].function);
  assert.equal(pieces, whole.usage.completion_tokens);
  // Cut short by max_tokens, the arguments stop mid-way, as a model's do.
  const cut = await client().chat.completions.create({ ...request, max_tokens: 3 });
  assert.equal(cut.choices[0].finish_reason, 'length');
  assert.ok(message.tool_calls[0].function.arguments.startsWith(cut.choices[0].message.tool_calls[0].function.arguments));
  assert.throws(() => JSON.parse(cut.choices[0].message.tool_calls[0].function.arguments), SyntaxError);
  // "auto" is the model's choice: the simulator answers in text.
  const auto = await client().chat.completions.create({ ...request, tool_choice: 'auto' });
  assert.equal(auto.choices[0].message.tool_calls, undefined);
  assert.equal(typeof auto.choices[0].message.content, 'string');
});

test('with --tool-call-share, "auto" calls the tool for some prompts and answers others in text', async () => {
  const chooser = new OpenAI({ baseURL: `${choosing.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const answers = [];
  for (let i = 0; i < 16; i += 1) {
    const request = {
      model: 'gemma-4-31b',
      messages: [{ role: 'user', content: `what is the weather in city number ${i}` }],
      tools: [weatherTool],
      max_tokens: 6,
    };
    // No tool_choice means "auto" when tools are given; the SDK's stream helper assembles either answer.
    const final = await chooser.chat.completions.stream({ ...request, tool_choice: i % 2 ? 'auto' : undefined })
      .finalChatCompletion();
    const again = await chooser.chat.completions.create({ ...request, tool_choice: 'auto' });
    const calls = final.choices[0].message.tool_calls ?? [];
    assert.equal((again.choices[0].message.tool_calls ?? []).length, calls.length, 'one prompt is answered alike');
    if (calls.length > 0) {
      assert.equal(calls[0].function.name, 'get_weather');
      assert.ok(['tool_calls', 'length'].includes(final.choices[0].finish_reason));
      assert.equal(final.choices[0].message.content, null);
    } else {
      assert.equal(typeof final.choices[0].message.content, 'string');
    }
    answers.push(calls.length > 0);
  }
  assert.ok(answers.includes(true) && answers.includes(false), JSON.stringify(answers));
  // "none" never calls.
  const none = await chooser.chat.completions.create({
    model: 'gemma-4-31b', messages: [{ role: 'user', content: 'x' }], tools: [weatherTool], tool_choice: 'none',
  });
  assert.equal(none.choices[0].message.tool_calls, undefined);
});

test('a forced tool call in the Responses API is a function_call item', async () => {
  const request = {
    model: 'gemma-4-31b',
    input: 'what is the weather in Paris',
    tools: [{ type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters }],
    tool_choice: 'required',
  };
  const whole = await client().responses.create(request);
  const call = whole.output.find((item) => item.type === 'function_call');
  assert.equal(call.name, 'get_weather');
  assert.ok(JSON.parse(call.arguments).city.length > 0);
  const stream = client().responses.stream(request);
  let deltas = '';
  stream.on('response.function_call_arguments.delta', (event) => { deltas += event.delta; });
  const final = await stream.finalResponse();
  assert.equal(deltas, call.arguments);
  assert.equal(final.output[0].arguments, call.arguments);
});

test('a tool_choice naming no tool surfaces as BadRequestError', async () => {
  await assert.rejects(
    client().chat.completions.create({
      model: 'gemma-4-31b',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_news' } },
    }),
    (err) => err instanceof OpenAI.BadRequestError && err.param === 'tool_choice' && /get_news/.test(err.message),
  );
});

test('streamed legacy completion', async () => {
  const stream = await client().completions.create({ model: 'gemma-4-31b', prompt: 'one two', max_tokens: 3, stream: true });
  let text = '';
  for await (const chunk of stream) {
    text += chunk.choices[0]?.text ?? '';
  }
  assert.equal(text.trim().split(/\s+/).length, 3);
});

test('an unknown model surfaces as the SDK NotFoundError', async () => {
  await assert.rejects(
    client().chat.completions.create({ model: 'gpt-nope', messages: [{ role: 'user', content: 'x' }] }),
    (err) => err instanceof OpenAI.NotFoundError && err.status === 404 && err.code === 'model_not_found',
  );
});

test('a wrongly typed field surfaces as BadRequestError naming the field', async () => {
  await assert.rejects(
    client().chat.completions.create({ model: 'gemma-4-31b', messages: [{ role: 'user', content: 'x' }], max_tokens: 'ten' }),
    (err) => err instanceof OpenAI.BadRequestError && err.param === 'max_tokens' && /integer/.test(err.message),
  );
});

test('a wrong key surfaces as AuthenticationError; the right one works', async () => {
  const wrong = new OpenAI({ baseURL: `${keyed.url}/v1`, apiKey: 'wrong-key', maxRetries: 0 });
  await assert.rejects(wrong.models.list(), (err) => err instanceof OpenAI.AuthenticationError && err.status === 401);
  const right = new OpenAI({ baseURL: `${keyed.url}/v1`, apiKey: 'right-key', maxRetries: 0 });
  assert.equal((await right.models.list()).data.length, 1);
});
