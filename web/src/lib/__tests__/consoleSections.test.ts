import { describe, expect, it } from 'vitest';

import { sectionOf } from '../consoleSections';

describe('sectionOf', () => {
  it('names the section of a page and of the pages under it', () => {
    expect(sectionOf('/clusters')).toBe('/clusters');
    expect(sectionOf('/clusters/create')).toBe('/clusters');
    expect(sectionOf('/capacity/plan-a')).toBe('/capacity');
    expect(sectionOf('/teams')).toBe('/teams');
  });

  it('names none for an address that only starts like a section', () => {
    expect(sectionOf('/cluster/e2e-typo')).toBeUndefined();
    expect(sectionOf('/clustersx')).toBeUndefined();
    expect(sectionOf('/')).toBeUndefined();
  });
});
