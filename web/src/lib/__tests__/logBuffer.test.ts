import { describe, expect, it } from 'vitest';

import { LOG_LIMIT, alignment, emptyLog, waiting, withStream, withTail } from '../logBuffer';

const log = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `step ${from + i}`);

function follow(tail: string[], ...batches: string[][]) {
  return batches.reduce((state, batch) => withStream(state, batch), withTail(emptyLog, tail));
}

describe('joining the REST tail and the live stream', () => {
  it('shows the REST tail before any line is streamed', () => {
    expect(withTail(emptyLog, log(50, 100)).shown).toEqual(log(50, 100));
  });

  it('shows each line once when a fresh pump replays the whole log from its first line', () => {
    const state = follow(log(50, 100), log(0, 60), log(60, 105));
    expect(state.shown).toEqual(log(0, 105));
    expect(state.joined).toBe(true);
  });

  it('holds back a replay that has not reached the tail yet', () => {
    const state = follow(log(50, 100), log(0, 20));
    expect(state.joined).toBe(false);
    expect(state.shown).toEqual(log(50, 100));
    expect(follow(log(50, 100), log(0, 20), log(20, 101)).shown).toEqual(log(0, 101));
  });

  it('shows the tail while a replay ends inside it, then joins once the stream passes its end', () => {
    const state = follow(log(50, 100), log(0, 70));
    expect(state.shown).toEqual(log(0, 100));
    expect(state.joined).toBe(false);
    expect(withStream(state, log(70, 102)).shown).toEqual(log(0, 102));
  });

  it('drops the overlap when a running pump is joined partway through the tail', () => {
    const state = follow(log(50, 100), log(90, 110));
    expect(state.shown).toEqual(log(50, 110));
    expect(withStream(state, log(110, 112)).shown).toEqual(log(50, 112));
  });

  it('holds a stream that begins right after the tail until a fresher tail meets it', () => {
    const state = follow(log(50, 100), log(100, 103));
    expect(state.shown).toEqual(log(50, 100));
    expect(waiting(state)).toBe(true);
    const fresher = withTail(state, log(54, 104));
    expect(fresher.shown).toEqual(log(54, 104));
    expect(fresher.joined).toBe(false); // the tail is ahead of the stream: its next line joins them
    const joined = withStream(fresher, log(103, 105));
    expect(joined.shown).toEqual(log(54, 105));
    expect(waiting(joined)).toBe(false);
  });

  it('takes the stream alone when the tail was empty', () => {
    const state = follow([], log(0, 3));
    expect(state.shown).toEqual(log(0, 3));
    expect(state.joined).toBe(true);
  });

  it('ignores REST tails once the stream is joined', () => {
    const state = withTail(follow(log(50, 100), log(0, 101)), log(60, 110));
    expect(state.shown).toEqual(log(0, 101));
  });

  it('keeps repeated lines that the log really has', () => {
    const tail = ['epoch 1', 'ok', 'ok'];
    expect(follow(tail, ['ok', 'ok', 'epoch 2', 'ok']).shown).toEqual(['epoch 1', 'ok', 'ok', 'epoch 2', 'ok']);
  });

  it('marks the log ended when the pump says the pod ended', () => {
    const state = withStream(follow(log(0, 5), log(0, 6)), [], true);
    expect(state.ended).toBe(true);
    expect(state.shown).toEqual(log(0, 6));
  });
});

describe('the bounded buffer', () => {
  it(`keeps the last ${LOG_LIMIT} lines of a long live log`, () => {
    let state = follow(log(0, 50), log(0, 50));
    for (let i = 50; i < 5050; i += 500) state = withStream(state, log(i, i + 500));
    expect(state.shown).toHaveLength(LOG_LIMIT);
    expect(state.shown[0]).toBe(`step ${5050 - LOG_LIMIT}`);
    expect(state.shown.at(-1)).toBe('step 5049');
  });

  it('joins a replay longer than the buffer without repeating the tail', () => {
    const state = follow(log(9950, 10000), ...Array.from({ length: 6 }, (_, i) => log(i * 2000, (i + 1) * 2000)));
    expect(state.shown).toEqual(log(12000 - LOG_LIMIT, 12000));
    expect(new Set(state.shown).size).toBe(state.shown.length);
  });
});

describe('alignment', () => {
  it('finds where the stream starts relative to the tail', () => {
    expect(alignment(log(50, 100), log(90, 110))).toBe(40);
    expect(alignment(log(50, 100), log(0, 120))).toBe(-50);
    expect(alignment(log(50, 100), log(100, 110))).toBeNull();
  });
});
