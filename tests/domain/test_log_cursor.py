"""The live log pump's cursor: lines sharing a stamp, a read that starts before the cursor (the API server
keeps only the seconds of sinceTime), a partial last line, and batches that fit a WebSocket message."""

from __future__ import annotations

import json

from launchpod.domain.jobs.log_cursor import MAX_BATCH_BYTES, Cursor, after, batches, new_lines

A = "2026-12-02T02:00:00.100000000Z"
B = "2026-12-02T02:00:00.200000000Z"
C = "2026-12-02T02:00:01.000000000Z"


def _log(*pairs: tuple[str, str]) -> str:
    return "".join(f"{stamp} {text}\n" for stamp, text in pairs)


def test_from_the_start_every_line_is_new_and_the_cursor_counts_the_last_stamp():
    text = _log((A, "a1"), (B, "b1"), (B, "b2"))
    fresh = new_lines(Cursor(), text, final=False)
    assert [t for _, t in fresh] == ["a1", "b1", "b2"]
    assert after(Cursor(), fresh) == Cursor(B, 2)


def test_a_read_since_the_cursor_skips_what_was_sent_even_at_the_same_stamp():
    cursor = Cursor(B, 2)
    # the server answered from the whole second: A's line and B's first two lines again
    text = _log((A, "a1"), (B, "b1"), (B, "b2"), (B, "b3"), (C, "c1"))
    fresh = new_lines(cursor, text, final=False)
    assert [t for _, t in fresh] == ["b3", "c1"]
    assert after(cursor, fresh) == Cursor(C, 1)


def test_the_cursor_continues_counting_a_stamp_across_reads():
    cursor = Cursor(B, 1)
    fresh = new_lines(cursor, _log((B, "b1"), (B, "b2")), final=False)
    assert [t for _, t in fresh] == ["b2"]
    assert after(cursor, fresh) == Cursor(B, 2)


def test_a_shorter_fraction_compares_as_the_same_instant():
    cursor = Cursor("2026-12-02T02:00:00.2Z", 1)
    assert [t for _, t in new_lines(cursor, _log((B, "b1"), (B, "b2")), final=False)] == ["b2"]


def test_a_partial_last_line_waits_for_the_next_read_unless_the_pod_ended():
    text = _log((A, "a1")) + f"{B} half a li"
    assert [t for _, t in new_lines(Cursor(), text, final=False)] == ["a1"]
    assert [t for _, t in new_lines(Cursor(), text, final=True)] == ["a1", "half a li"]


def test_a_line_keeps_spaces_after_its_stamp():
    assert new_lines(Cursor(), f"{A} [rank0] step 1  loss 2\n", final=False) == [(A, "[rank0] step 1  loss 2")]


def test_delivering_batch_by_batch_gives_the_same_cursor_as_all_at_once():
    lines = [(A if i < 3 else B, f"line {i}") for i in range(7)]
    cursor = Cursor()
    for batch in batches(lines, max_lines=2):
        cursor = after(cursor, batch)
    assert cursor == after(Cursor(), lines) == Cursor(B, 4)
    # and a read after the hand-over from any of those cursors yields exactly the rest
    for cut in range(len(lines) + 1):
        mid = after(Cursor(), lines[:cut])
        rest = new_lines(mid, _log(*lines), final=False)
        assert [t for _, t in lines[:cut]] + [t for _, t in rest] == [t for _, t in lines]


def test_batches_keep_order_and_fit_a_websocket_message():
    lines = [(A, "x" * 1000) for _ in range(300)] + [(B, "y" * 200_000)]
    out = batches(lines)
    assert [t for batch in out for _, t in batch][:300] == ["x" * 1000] * 300
    for batch in out:
        message = json.dumps({"topic": "logs:c/ns/p", "type": "log", "data": {"lines": [t for _, t in batch]}})
        assert len(message.encode()) < 128 * 1024
    assert out[-1][0][1].endswith("[truncated]") and len(out[-1][0][1]) < MAX_BATCH_BYTES
    assert sum(len(b) for b in out) == 301
