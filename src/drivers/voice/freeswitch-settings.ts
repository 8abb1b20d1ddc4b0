/**
 * The freeswitch driver's settings (a gateway's `settings` when its driver is `freeswitch`), with
 * defaults, checked when the gateway is written and again when the driver is built. The checks
 * are the SMS drivers' (one style of message for every gateway resource).
 */
import { type Check, checks, checkSettings, type SettingsResult } from '../sms/settings.ts';

export interface FreeswitchSettings {
  /** Event Socket address (mod_event_socket's listen-ip / listen-port). */
  host: string;
  port: number;
  password: string;
  /** Connecting and authenticating must take no longer than this. */
  connect_timeout_ms: number;
  /** After a failed connection, originates fail at once for this long (doubled per failure up to 30 s). */
  reconnect_ms: number;
  /**
   * DATA_DIR as FreeSWITCH sees it (audio files are played, recordings written, under it);
   * '' = the engine's own DATA_DIR (FreeSWITCH on the same machine, or the same mount).
   */
  media_dir: string;
  /** mod_tts engine and voice of text prompts: `speak <engine>|<voice>|<text>`. */
  tts_engine: string;
  tts_voice: string;
  /**
   * ASR module (`pocketsphinx`, `unimrcp`, `unimrcp:<profile>` …) and grammar of speech
   * sections: `detect_speech <asr_engine> <asr_grammar> …`, so neither may hold a space.
   */
  asr_engine: string;
  asr_grammar: string;
}

/** One detect_speech argument: FreeSWITCH splits the application's data on spaces. */
const word: Check = (v) => (typeof v === 'string' && /^\S+$/.test(v) ? null : 'must be a non-empty string without spaces.');

const SPECS = {
  host: { check: checks.text, default: '127.0.0.1' },
  port: { check: checks.integer(1, 65535), default: 8021 },
  password: { check: checks.text, default: 'ClueCon' },
  connect_timeout_ms: { check: checks.integer(100, 120_000), default: 5000 },
  reconnect_ms: { check: checks.integer(10, 60_000), default: 1000 },
  media_dir: { check: checks.anyText, default: '' },
  tts_engine: { check: checks.text, default: 'flite' },
  tts_voice: { check: checks.text, default: 'kal' },
  asr_engine: { check: word, default: 'pocketsphinx' },
  asr_grammar: { check: word, default: 'default' },
};

/** Checks raw settings (null/undefined = all defaults) and fills in the defaults. */
export function freeswitchSettings(raw: unknown): SettingsResult<FreeswitchSettings> {
  return checkSettings<FreeswitchSettings>('freeswitch', SPECS, raw);
}
