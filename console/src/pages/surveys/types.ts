/** The survey records as the editor reads them (src/resources/survey-template, section-template, branching-template). */

export interface Survey {
  id: number;
  url: string;
  name: string;
  description: string | null;
  user: string;
  created_date: string;
  updated_date: string;
}

export interface Section {
  id: number;
  url: string;
  survey: string;
  order: number;
  type: number;
  question: string;
  script: string;
  audiofile: string | null;
  invalid_audiofile: string | null;
  retries: number | null;
  timeout: number;
  key_0: string | null;
  key_1: string | null;
  key_2: string | null;
  key_3: string | null;
  key_4: string | null;
  key_5: string | null;
  key_6: string | null;
  key_7: string | null;
  key_8: string | null;
  key_9: string | null;
  rating_laps: number;
  validate_number: boolean;
  number_digits: number;
  min_number: number;
  max_number: number;
  phonenumber: string | null;
  conference: string | null;
  completed: boolean;
  queue: string | null;
  sms_text: string | null;
  api_url: string | null;
  /** Shown only when set (issue 16): a call through this section asks to be called back this many minutes after it ends. */
  callback_minutes?: number;
}

/** GET /survey-template/<id>/flow/: sections in play order with their branches, and the problems. */
export interface Flow {
  survey: string;
  sections: FlowSection[];
  problems: string[];
}

export interface FlowSection {
  id: number;
  order: number;
  type: number;
  question: string;
  keys: (string | null)[];
  rating_laps: number;
  validate_number: boolean;
  completed: boolean;
  branches: FlowBranch[];
}

export interface FlowBranch {
  id: number;
  keys: string;
  /** A section id; null = hang up. */
  goto: number | null;
}
