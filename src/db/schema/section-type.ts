/**
 * Section `type` (contract §4), said once: the schema (ivr.ts), the engine and the API use it, and the
 * console's survey editor shows it. No imports, so the console's bundle can take it as it is.
 */
export const SectionType = {
  PlayMessage: 1,
  MultiChoice: 2,
  Rating: 3,
  CaptureDigits: 4,
  RecordMessage: 5,
  CallTransfer: 6,
  HangUp: 7,
  Conference: 8,
  Dnc: 9,
  SmsMessage: 10,
  ApiCall: 11,
  Queue: 12,
  SpeechRecognition: 13,
  AsyncApiCall: 14,
} as const;
