/**
 * The Flight entrance's counters, in the app's Prometheus registry (server/plugins/metrics.ts makes it): calls by
 * method and outcome. Rows sent are counted in the app's rows counter under format `flight`.
 */
import { Counter, type Registry } from 'prom-client';

export interface FlightMetrics {
  calls: Counter<'method' | 'outcome'>;
}

/** The counters, registered once per registry (a second server on the same registry reuses them). */
export function flightMetrics(registry: Registry): FlightMetrics {
  const name = 'topicgate_flight_calls_total';
  const existing = registry.getSingleMetric(name) as Counter<'method' | 'outcome'> | undefined;
  const calls =
    existing ??
    new Counter({
      name,
      help: 'Flight SQL calls, by method and outcome (ok, refused, cancelled)',
      labelNames: ['method', 'outcome'],
      registers: [registry],
    });
  return { calls };
}
