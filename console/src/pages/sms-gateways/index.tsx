/** SMS gateways: /sms-gateways (list), and for admins /sms-gateways/new and /sms-gateways/:id. */
import { GatewayPages, type GatewayKind } from '../../components/gateway-pages.tsx';

const SMS: GatewayKind = {
  kind: 'sms',
  resource: 'sms-gateway',
  path: '/sms-gateways',
  title: 'SMS gateways',
  noun: 'SMS gateway',
  drivers: ['simulator', 'kannel', 'smpp', 'http'],
  plural: 'SMS gateways',
  what: 'The carriers text messages go through: an SMS campaign sends through one SMS gateway.',
};

export default function SmsGateways() {
  return <GatewayPages k={SMS} />;
}
