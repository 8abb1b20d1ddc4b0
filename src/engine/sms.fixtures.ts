/**
 * Only for src/resources/sms-campaigns/sms-campaigns.test.ts, which another change owns and which
 * still imports makeSmsGateway from here: the factory lives in test/factories.ts, the SMS
 * engine's fixtures in sms/sms.fixtures.ts. Remove once that test imports test/factories.ts.
 */
export { makeSmsGateway } from '../../test/factories.ts';
