/** The environment settings of the Flight SQL entrance (API.md "Flight SQL"): its port and its TLS files. */
import { Type } from 'typebox';
import { textSetting, type SettingOptions } from './setting-options.js';

/** A port, `off`, or `default` when unset (flightPortOf). */
const portOrOffSetting = (o: SettingOptions) =>
  Type.Union([Type.Integer(), Type.Literal('off'), Type.Literal('default')], o);

/** The Flight port when unset: 3001, or 0 (any free port) beside an HTTP port of 0, so ephemeral gateways never race. */
export const DEFAULT_FLIGHT_PORT = 3001;

/** The port the Flight SQL server listens on, or null when it is off. */
export function flightPortOf(config: { port: number; flightPort: number | 'off' | 'default' }): number | null {
  if (config.flightPort === 'off') return null;
  if (config.flightPort === 'default') return config.port === 0 ? 0 : DEFAULT_FLIGHT_PORT;
  return config.flightPort;
}

export const flightSettings = {
  flightPort: portOrOffSetting({
    env: 'TOPICGATE_FLIGHT_PORT',
    read: 'port-or-off',
    fallback: '',
    shownDefault: '`3001` (`0` when `TOPICGATE_PORT` is `0`)',
    description:
      'port of the Flight SQL server (gRPC: ADBC, the Flight SQL JDBC driver, `pyarrow.flight`) on `TOPICGATE_HOST`; ' +
      '`0`: any free port; `off`: none',
  }),
  flightTlsCert: textSetting({
    env: 'TOPICGATE_FLIGHT_TLS_CERT',
    read: 'file',
    fallback: '',
    description:
      'PEM certificate (chain) of the Flight SQL server: with `TOPICGATE_FLIGHT_TLS_KEY`, it serves `grpc+tls://`',
  }),
  flightTlsKey: textSetting({
    env: 'TOPICGATE_FLIGHT_TLS_KEY',
    read: 'file',
    fallback: '',
    description: 'PEM private key of the Flight SQL server certificate',
  }),
};
