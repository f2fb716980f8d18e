// Quantities as apimachinery's resource.Quantity reads and prints them (cases from its quantity_test.go where they
// exist): the canonical string, the exact value, the format, the float view, and the input Kubernetes refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addQuantity,
  bytes,
  cpuMillis,
  formatBytes,
  formatCpu,
  formatQuantity,
  milliValue,
  parseQuantity,
  quantity,
  quantityValue,
} from '../../src/k8s/quantity.ts';

const N = 1_000_000_000n;

describe('quantity', () => {
  it('parses to the exact value and prints the canonical form', () => {
    // input, printed, value in nano units, format
    const cases: [string, string, bigint, string][] = [
      ['0', '0', 0n, 'DecimalSI'],
      ['0Mi', '0', 0n, 'BinarySI'],
      ['1', '1', N, 'DecimalSI'],
      ['1000m', '1', N, 'DecimalSI'],
      ['1500m', '1500m', 1_500_000_000n, 'DecimalSI'],
      ['0.5', '500m', 500_000_000n, 'DecimalSI'],
      ['1.5', '1500m', 1_500_000_000n, 'DecimalSI'],
      ['2000', '2k', 2000n * N, 'DecimalSI'],
      ['50k', '50k', 50_000n * N, 'DecimalSI'],
      ['1000M', '1G', 10n ** 9n * N, 'DecimalSI'],
      ['1E', '1E', 10n ** 18n * N, 'DecimalSI'],
      ['1000E', '1e21', 10n ** 21n * N, 'DecimalSI'],
      ['5n', '5n', 5n, 'DecimalSI'],
      ['4u', '4u', 4000n, 'DecimalSI'],
      ['1.2345', '1234500u', 1_234_500_000n, 'DecimalSI'],
      ['100.035k', '100.035k', 100_035n * N, 'DecimalSI'],
      ['1Ki', '1Ki', 1024n * N, 'BinarySI'],
      ['128Mi', '128Mi', 128n * 2n ** 20n * N, 'BinarySI'],
      ['1024Mi', '1Gi', 2n ** 30n * N, 'BinarySI'],
      ['0.5Gi', '512Mi', 2n ** 29n * N, 'BinarySI'],
      ['1536', '1536', 1536n * N, 'DecimalSI'],
      ['.001Ki', '1024m', 1_024_000_000n, 'BinarySI'],
      ['.000000000001Ki', '2n', 2n, 'DecimalSI'],
      ['0.5Ki', '512', 512n * N, 'BinarySI'],
      ['1.1Ki', '1126400m', 1_126_400_000_000n, 'BinarySI'],
      ['9Ei', '9223372036854775807', ((1n << 63n) - 1n) * N, 'BinarySI'],
      // Exponents keep the exponent format (Kubernetes prints "1e3", never "1k").
      ['1e3', '1e3', 1000n * N, 'DecimalExponent'],
      ['1E3', '1E3', 1000n * N, 'DecimalExponent'],
      ['1e1', '10', 10n * N, 'DecimalExponent'],
      ['1.5e3', '1500', 1500n * N, 'DecimalExponent'],
      ['1.3E+6', '1300e3', 1_300_000n * N, 'DecimalExponent'],
      ['1E-3', '1E-3', 1_000_000n, 'DecimalExponent'],
      ['100e-3', '100e-3', 100_000_000n, 'DecimalExponent'],
      ['1000e-3', '1', N, 'DecimalExponent'],
      // Rounded up to nano, away from zero.
      ['3.001n', '4n', 4n, 'DecimalSI'],
      ['0.0000000001', '1n', 1n, 'DecimalSI'],
      ['-0.0000000001', '-1n', -1n, 'DecimalSI'],
      ['-1.5', '-1500m', -1_500_000_000n, 'DecimalSI'],
      ['-128Mi', '-128Mi', -128n * 2n ** 20n * N, 'BinarySI'],
      // Kept as written where Kubernetes' fast path finds the text canonical.
      ['+1', '+1', N, 'DecimalSI'],
      ['1.500k', '1.500k', 1500n * N, 'DecimalSI'],
      ['1.0E', '1E', 10n ** 18n * N, 'DecimalSI'],
      // Written by trolls, accepted by Kubernetes.
      ['1.', '1.', N, 'DecimalSI'],
      ['1.G', '1.G', 10n ** 9n * N, 'DecimalSI'],
      ['.5', '500m', 500_000_000n, 'DecimalSI'],
      ['.', '0', 0n, 'DecimalSI'],
      ['-', '0', 0n, 'DecimalSI'],
    ];
    for (const [input, printed, nano, format] of cases) {
      const q = parseQuantity(input);
      assert.ok(q, input);
      assert.equal(q.nano, nano, input);
      assert.equal(q.format, format, input);
      assert.equal(formatQuantity(q), printed, input);
    }
  });

  it('refuses what Kubernetes refuses', () => {
    for (const bad of [
      '',
      ' 1',
      '1 ',
      'aoeu',
      '1.1.M',
      '1+1.0M',
      '0.1mi',
      '0.1am',
      '.5i',
      '1i',
      '-3.01e-',
      '1e',
      '1Zi',
      '--1',
      '1e1000',
      '9'.repeat(65),
    ])
      assert.equal(parseQuantity(bad), undefined, JSON.stringify(bad));
    for (const notString of [null, undefined, true, {}, [], Number.NaN, Number.POSITIVE_INFINITY])
      assert.equal(parseQuantity(notString), undefined, String(notString));
  });

  it('reads JSON numbers as their decimal text', () => {
    assert.equal(formatQuantity(parseQuantity(2) ?? quantity(0)), '2');
    assert.equal(parseQuantity(0.25)?.nano, 250_000_000n);
    assert.equal(parseQuantity(1e21)?.nano, 10n ** 21n * N);
  });

  it('adds in the first operand format and compares exactly', () => {
    const sum = addQuantity(parseQuantity('1Gi'), parseQuantity('512Mi') ?? quantity(0));
    assert.equal(formatQuantity(sum), '1536Mi');
    const zeroFirst = addQuantity(quantity(0), parseQuantity('2Mi') ?? quantity(0));
    assert.equal(formatQuantity(zeroFirst), '2Mi');
    // A sum loses the kept text.
    assert.equal(formatQuantity(addQuantity(parseQuantity('+1'), quantity(1))), '2');
    assert.equal(milliValue(parseQuantity('1n') ?? quantity(0)), 1n);
  });

  it('gives the float view the scheduler and node annotations use', () => {
    assert.equal(cpuMillis('250m'), 250);
    assert.equal(cpuMillis('1.0001'), 1001);
    assert.equal(cpuMillis('bad'), 0);
    assert.equal(bytes('1Gi'), 2 ** 30);
    assert.equal(bytes('1.5k'), 1500);
    assert.equal(bytes('0.5'), 1);
    assert.equal(quantityValue('1500m'), 1.5);
    assert.equal(formatCpu(0), '0');
    assert.equal(formatCpu(250), '250m');
    assert.equal(formatCpu(2000), '2');
    assert.equal(formatBytes(384 * 2 ** 20), '384Mi');
    assert.equal(formatBytes(1.5e9), '1500M');
    assert.equal(formatBytes(1536), '1536');
    assert.equal(formatBytes(0), '0');
  });
});
