// Auditing: builds the configured sinks (file, webhook, or both) from the `auditing` section of kubesphere.yaml.
import type { Logger } from 'pino';
import type { AuditingOptions } from '../../config/index.ts';
import type { AuditEvent } from './event.ts';
import { type AuditSink, FileSink, type OutcomeCounter, WebhookSink } from './sinks.ts';

export { type AuditEvent, type AuditInput, buildAuditEvent, redactRequestUri } from './event.ts';
export { type AuditSink, FileSink, WebhookSink } from './sinks.ts';

export interface Auditor {
  /** Never blocks and never throws: the event is queued or counted as dropped. */
  record(event: AuditEvent): void;
  readonly sinks: readonly AuditSink[];
  close(): Promise<void>;
}

/** Auditing off: records nothing. */
const NO_AUDITOR: Auditor = { sinks: [], record() {}, async close() {} };

/** The auditor for the options; one without sinks when auditing is off or no sink is configured (logged). */
export function createAuditor(
  opts: AuditingOptions,
  logger: Logger,
  count: OutcomeCounter = () => {},
): Auditor {
  if (!opts.enable) return NO_AUDITOR;
  const sinks: AuditSink[] = [];
  if (opts.logPath) sinks.push(new FileSink(opts.logPath, logger, count));
  if (opts.webhookUrl) {
    sinks.push(
      new WebhookSink(
        {
          url: opts.webhookUrl,
          batchSize: opts.eventBatchSize,
          batchIntervalMs: opts.eventBatchInterval,
          senders: opts.eventSendersNum,
        },
        logger,
        count,
      ),
    );
  }
  if (sinks.length === 0) {
    logger.warn(
      'auditing.enable is true but neither auditing.logPath nor auditing.webhookUrl is set; no audit events',
    );
    return NO_AUDITOR;
  }
  logger.info({ sinks: sinks.map((s) => s.name) }, 'auditing enabled');
  return {
    sinks,
    record(event) {
      for (const s of sinks) {
        try {
          s.write(event);
        } catch (err) {
          logger.error({ sink: s.name, err: (err as Error).message }, 'audit sink failed');
        }
      }
    },
    async close() {
      await Promise.all(sinks.map((s) => s.close()));
    },
  };
}
