"""Baseline for bench/client_fidelity.py: a streaming benchmark client written the way common
Python benchmark scripts are (aiohttp, line iteration, json.loads per event, a timestamp when the
first content arrives). Closed loop at a fixed concurrency. Prints one JSON object:
{"records": [[client_first_token_ns, server_first_token_ns, completion_tokens], ...], "start_ns", "end_ns"}.
Run with Debian's /usr/bin/python3 (python3-aiohttp)."""
import argparse
import asyncio
import json
import random
import time

import aiohttp

WORDS = "the of and to in is that for it as was with be by on not he this are or".split()


async def one(session, url, model, prompt_words, output_tokens, rng):
    body = {
        "model": model,
        "messages": [{"role": "user", "content": " ".join(rng.choice(WORDS) for _ in range(prompt_words))}],
        "max_tokens": output_tokens, "min_tokens": output_tokens, "ignore_eos": True, "stream": True,
        "stream_options": {"include_usage": True},
    }
    first = None
    trace = None
    tokens = 0
    async with session.post(url, json=body, headers={"x-infergate-trace": "1"}) as response:
        response.raise_for_status()
        async for line in response.content:
            line = line.strip()
            if not line:
                continue
            text = line.decode().removeprefix("data: ")
            if text == "[DONE]":
                continue
            data = json.loads(text)
            if data["choices"] and data["choices"][0]["delta"].get("content"):
                if first is None:
                    first = time.monotonic_ns()
            if data.get("usage"):
                tokens = data["usage"]["completion_tokens"]
            if "infergate_trace" in data:
                trace = data["infergate_trace"]["first_token_ns"]
    return [first, trace, tokens]


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base-url", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--requests", type=int, default=256)
    p.add_argument("--input-tokens", type=int, default=64)
    p.add_argument("--output-tokens", type=int, default=256)
    a = p.parse_args()
    url = a.base_url + "/v1/chat/completions"
    rng = random.Random(1)
    records = []
    issued = 0
    connector = aiohttp.TCPConnector(limit=a.concurrency)
    timeout = aiohttp.ClientTimeout(total=600)
    start = time.monotonic_ns()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        async def worker():
            nonlocal issued
            while issued < a.requests:
                issued += 1
                records.append(await one(session, url, a.model, a.input_tokens, a.output_tokens, rng))

        await asyncio.gather(*(worker() for _ in range(a.concurrency)))
    print(json.dumps({"records": records, "start_ns": start, "end_ns": time.monotonic_ns()}))


asyncio.run(main())
