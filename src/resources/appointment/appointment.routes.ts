/** Newfies' appointment module (issue 17, item 8): its eight resources, in the API root's order. */
import type { Resource } from '../../http/api.ts';
import { alarmRequestResource } from './alarm-request.ts';
import { alarmResource } from './alarm.ts';
import { calendarSettingResource } from './calendar-setting.ts';
import { calendarUserProfileResource, calendarUserResource } from './calendar-user.ts';
import { calendarResource } from './calendar.ts';
import { eventResource } from './event.ts';
import { ruleResource } from './rule.ts';

export const appointmentResources: Resource[] = [
  calendarSettingResource,
  calendarUserResource,
  calendarUserProfileResource,
  calendarResource,
  ruleResource,
  eventResource,
  alarmResource,
  alarmRequestResource,
];
