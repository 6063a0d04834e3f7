"""Memory and threads: no leak over 10,000 calls (RSS from /proc/self/statm), and two Python
threads translating at once on separate Translators, with the GIL released while they work."""

import array
import gc
import os
import threading
import time

import numpy as np
import pytest

import pocketmt
from conftest import BIBLE_MODEL, DEFAULT_MODEL

CALLS = 10_000
# Growth allowed over the 10,000 calls after warm-up: 256 KiB, about 26 bytes per call: a leak
# of one small object per translate call (measured: 548 KiB for a 100-byte bytearray kept per
# translate call) fails; the measured growth is 0 (docs/python.md).
RSS_BOUND = 256 << 10


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_leak_over_10000_calls():
    t = pocketmt.Translator(DEFAULT_MODEL)
    source = np.array(t.encode("Save your changes."), dtype=np.int32)
    calls = [
        lambda: t.translate(["Hello.", b"Open the file."], beam_size=1, max_length=6),
        lambda: t.translate(["Hello."], beam_size=2, max_length=6, return_scores=True),
        lambda: t.translate_ids([source, [5, 6, 7]], beam_size=1, max_length=6, return_scores=True),
        lambda: t.score([source, array.array("i", [5, 6])], [[10, 11], [12]]),
        lambda: t.decode(t.encode("The file could not be opened.")),
        lambda: "".join(t.stream("Hi. Bye.", beam_size=1, max_length=4)),
        lambda: t.model_info,
    ]

    def bad_utf8():
        with pytest.raises(pocketmt.InvalidUtf8Error):
            t.translate([b"\xff"])

    def bad_type():
        with pytest.raises(TypeError):
            t.translate_ids([[1.5]])

    calls += [bad_utf8, bad_type]

    def run(n):
        for i in range(n):
            calls[i % len(calls)]()

    run(1000)  # warm-up: allocator pools, SentencePiece's and the runtime's buffers reach their size
    gc.collect()
    before = rss_bytes()
    run(CALLS)
    gc.collect()
    growth = rss_bytes() - before
    print(f"RSS {before / 2**20:.1f} MiB before, growth {growth / 1024:.0f} KiB over {CALLS} calls")
    assert growth < RSS_BOUND


def test_two_threads_at_once_equal_sequential(bible_lines):
    jobs = [(BIBLE_MODEL, bible_lines[:24]), (DEFAULT_MODEL, bible_lines[24:])]
    translators = [pocketmt.Translator(model) for model, _ in jobs]
    sequential = [t.translate(lines) for t, (_, lines) in zip(translators, jobs)]
    results = [None, None]
    start = threading.Barrier(2)

    def work(k):
        start.wait()
        results[k] = translators[k].translate(jobs[k][1])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == sequential


def test_one_translator_shared_by_threads(bible_lines):
    """Calls on one Translator from several threads queue on its mutex; each gets its own results."""
    t = pocketmt.Translator(BIBLE_MODEL)
    chunks = [bible_lines[k::4] for k in range(4)]
    expected = [t.translate(c, beam_size=1) for c in chunks]
    results = [None] * 4

    def work(k):
        results[k] = t.translate(chunks[k], beam_size=1)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == expected


def test_gil_released_while_translating(bible_lines):
    """While one thread translates, the main thread keeps running Python: the longest gap between
    its loop iterations stays far below the translation's duration (it would span all of it
    if the GIL were held)."""
    t = pocketmt.Translator(DEFAULT_MODEL)
    done = threading.Event()
    span = {}
    # One call long enough on a fast CPU too (16 verses took 0.07 s on an AVX-512 VNNI core).
    lines = (bible_lines * 200)[:200]

    def work():
        span["start"] = time.perf_counter()
        t.translate(lines)
        span["end"] = time.perf_counter()
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    last, longest = time.perf_counter(), 0.0
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    duration = span["end"] - span["start"]
    assert duration > 0.1
    assert longest < duration / 4, f"main thread stalled {longest:.3f} s of a {duration:.3f} s call"
