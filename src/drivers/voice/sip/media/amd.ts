/**
 * Answering-machine detection by the lengths of speech and silence in the callee's first
 * seconds, as FreeSWITCH's mod_amd (itself a port of Asterisk's app_amd) does. Each 20 ms frame
 * is voice or silence by its mean absolute level against `silenceThreshold`; then:
 *
 * - silence from the start for `initialSilenceMs` (2500)              → machine (a machine waits)
 * - a greeting heard, then `afterGreetingSilenceMs` (800) of silence  → person ("Hello?" … waits)
 * - `maxWords` (3) words, a word being ≥ `minWordMs` (100) of voice
 *   after ≥ `betweenWordsSilenceMs` (50) of silence                   → machine (a long message)
 * - `greetingMs` (1500) of voice in all                               → machine (long greeting)
 * - none of these within `totalAnalysisMs` (5000)                      → unsure
 *
 * The defaults are mod_amd's, and the sip driver uses them as they are (driver.ts `amdParams`);
 * `detectMachine` takes overrides of any of them (the tests use a short initial silence).
 */
import { meanAbs } from './level.ts';

export interface AmdParams {
  initialSilenceMs: number;
  greetingMs: number;
  afterGreetingSilenceMs: number;
  totalAnalysisMs: number;
  minWordMs: number;
  betweenWordsSilenceMs: number;
  maxWords: number;
  silenceThreshold: number;
}

export const AMD_DEFAULTS: AmdParams = Object.freeze({
  initialSilenceMs: 2500,
  greetingMs: 1500,
  afterGreetingSilenceMs: 800,
  totalAnalysisMs: 5000,
  minWordMs: 100,
  betweenWordsSilenceMs: 50,
  maxWords: 3,
  silenceThreshold: 256,
});

export type AmdVerdict = 'person' | 'machine' | 'unsure';

export class AmdDetector {
  readonly params: AmdParams;
  private totalMs = 0;
  private silenceMs = 0;
  private consecutiveVoiceMs = 0;
  private voiceMs = 0;
  private words = 0;
  private inWord = false;
  private inGreeting = false;
  /** Why the verdict was reached (mod_amd's `amd_result` cause), for logs. */
  reason = '';

  constructor(params: Partial<AmdParams> = {}) {
    this.params = { ...AMD_DEFAULTS, ...params };
  }

  /** Feeds 8 kHz audio; returns the verdict once one is reached. */
  feed(pcm: Int16Array): AmdVerdict | undefined {
    const ms = pcm.length / 8;
    this.totalMs += ms;
    const verdict = meanAbs(pcm) < this.params.silenceThreshold ? this.silence(ms) : this.voice(ms);
    if (verdict) return verdict;
    if (this.totalMs >= this.params.totalAnalysisMs) return this.decide('unsure', 'TOOLONG');
    return undefined;
  }

  private silence(ms: number): AmdVerdict | undefined {
    this.silenceMs += ms;
    this.consecutiveVoiceMs = 0;
    if (this.silenceMs >= this.params.betweenWordsSilenceMs) this.inWord = false;
    if (!this.inGreeting && this.silenceMs >= this.params.initialSilenceMs) return this.decide('machine', 'INITIALSILENCE');
    if (this.inGreeting && this.silenceMs >= this.params.afterGreetingSilenceMs) return this.decide('person', 'HUMAN');
    return undefined;
  }

  private voice(ms: number): AmdVerdict | undefined {
    this.silenceMs = 0;
    this.consecutiveVoiceMs += ms;
    this.voiceMs += ms;
    if (!this.inWord && this.consecutiveVoiceMs >= this.params.minWordMs) {
      this.inWord = true;
      this.words++;
      this.inGreeting = true;
    }
    if (this.words >= this.params.maxWords) return this.decide('machine', 'MAXWORDS');
    if (this.inGreeting && this.voiceMs >= this.params.greetingMs) return this.decide('machine', 'LONGGREETING');
    return undefined;
  }

  private decide(verdict: AmdVerdict, reason: string): AmdVerdict {
    this.reason = reason;
    return verdict;
  }
}
