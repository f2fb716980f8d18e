// CronJob schedule parsing and next-run computation: fields, names, steps, macros, the day-of-month/day-of-week
// rule, time zones, and the errors a bad schedule gets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedule } from '../../src/devcluster/cron-schedule.ts';

const at = (iso: string) => Date.parse(iso);
const next = (s: string, after: string, tz?: string) => {
  const t = parseSchedule(s, tz).next(at(after));
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe('cron schedules', () => {
  it('finds the next minute that matches', () => {
    assert.equal(next('*/15 * * * *', '2030-01-01T00:07:30Z'), '2030-01-01T00:15:00.000Z');
    assert.equal(
      next('0 9 * * mon-fri', '2030-01-04T10:00:00Z'),
      '2030-01-07T09:00:00.000Z',
      'Friday to Monday',
    );
    assert.equal(next('@hourly', '2030-01-01T00:00:00Z'), '2030-01-01T01:00:00.000Z');
    assert.equal(next('@yearly', '2030-06-01T00:00:00Z'), '2031-01-01T00:00:00.000Z');
    assert.equal(next('0 0 29 feb *', '2029-03-01T00:00:00Z'), '2032-02-29T00:00:00.000Z');
    assert.equal(next('30 2 * * 7', '2030-01-01T00:00:00Z'), '2030-01-06T02:30:00.000Z', '7 is Sunday');
    assert.equal(next('5,10-12/2 * * * *', '2030-01-01T00:06:00Z'), '2030-01-01T00:10:00.000Z');
  });

  it('restricted day-of-month and day-of-week match either', () => {
    assert.equal(next('0 0 15 * mon', '2030-01-01T00:00:00Z'), '2030-01-07T00:00:00.000Z');
  });

  it('evaluates in spec.timeZone', () => {
    assert.equal(next('0 9 * * *', '2030-01-01T00:30:00Z', 'Asia/Tokyo'), '2030-01-02T00:00:00.000Z');
  });

  it('never firing schedules have no next run; bad ones throw what is wrong', () => {
    assert.equal(next('0 0 30 2 *', '2030-01-01T00:00:00Z'), undefined);
    assert.throws(() => parseSchedule('* * *'), /expected exactly 5 fields, found 3/);
    assert.throws(() => parseSchedule('61 * * * *'), /above maximum/);
    assert.throws(() => parseSchedule('@fortnightly'), /unrecognized descriptor/);
    assert.throws(() => parseSchedule('TZ=UTC 0 * * * *'), /use timeZone field instead/);
    assert.throws(() => parseSchedule('0 * * * *', 'Mars/Olympus'), /unknown time zone/);
    assert.throws(() => parseSchedule('*/0 * * * *'), /positive/);
  });
});
