// What a /_emulator/reset builds with: the seed and scale asked for, else the emulator's own, within the cap.
import { describe, expect, it } from 'vitest';
import { resetSettings } from '../../src/emulation/inspection.js';

describe('resetSettings', () => {
  const configured = { seed: 1, scale: 240 };

  it('takes what the reset asks for, and the configured seed and scale for what it leaves out', () => {
    expect(resetSettings({}, configured, 1000)).toEqual({ ok: true, value: { seed: 1, scale: 240 } });
    expect(resetSettings({ seed: 7 }, configured, 1000)).toEqual({
      ok: true,
      value: { seed: 7, scale: 240 },
    });
    expect(resetSettings({ seed: 7, scale: 1000 }, configured, 1000)).toEqual({
      ok: true,
      value: { seed: 7, scale: 1000 },
    });
  });

  it('refuses a scale above the cap, saying what the cap is', () => {
    expect(resetSettings({ scale: 1001 }, configured, 1000)).toEqual({
      ok: false,
      error: 'scale must be at most 1000',
    });
  });
});
