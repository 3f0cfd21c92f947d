/** The environment settings of the Flight SQL entrance (API.md "Flight SQL"): its port and its TLS files. */
import { Type } from 'typebox';
import { textSetting, type SettingOptions } from './setting-options.js';

/** A port, or `off`. */
const portOrOffSetting = (o: SettingOptions) => Type.Union([Type.Integer(), Type.Literal('off')], o);

export const flightSettings = {
  flightPort: portOrOffSetting({
    env: 'TOPICGATE_FLIGHT_PORT',
    read: 'port-or-off',
    fallback: '3001',
    description:
      'port of the Flight SQL server (gRPC: ADBC, the Flight SQL JDBC driver, `pyarrow.flight`) on `TOPICGATE_HOST`; `off`: none',
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
