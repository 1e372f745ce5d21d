import { Checkbox, Input, SegmentedControl, Stack, Textarea } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { ResolvedNetwork } from '../../../../shared/schemas/network';
import { options } from '../../kit/options';
import type { BoxValues } from './box-form';

const alert = { errorProps: { role: 'alert' } };

export const INTERNET_LABELS = { open: 'Open', none: 'Off', allowlist: 'Only these hosts' } as const;

/** "Internet: open / off / only these hosts", the hosts when only those, and whether this computer is reachable. */
export function NetworkFields({ form }: { form: UseFormReturnType<BoxValues> }) {
  return (
    <Stack gap="xs">
      <Input.Wrapper
        label="Internet"
        description="Applies at once, from the next connection on; boxes of the project always reach each other by name"
        error={form.errors.egress}
        {...alert}
      >
        <SegmentedControl aria-label="Internet" data={options(INTERNET_LABELS)} {...form.getInputProps('egress')} />
      </Input.Wrapper>
      {form.values.egress === 'allowlist' && (
        <Textarea
          label="Allowed hosts"
          description="One a line: an IP address, a CIDR (10.0.0.0/8) or a host name, each optionally with :port"
          placeholder={'203.0.113.7\napi.example.com:443'}
          autosize
          minRows={2}
          {...form.getInputProps('allow')}
          {...alert}
        />
      )}
      <Checkbox
        label="Can reach this computer (its own addresses)"
        {...form.getInputProps('host', { type: 'checkbox' })}
        {...alert}
      />
    </Stack>
  );
}

/** The box's network in a sentence, for its details. */
export function networkText(network: ResolvedNetwork): string {
  const internet =
    network.egress === 'allowlist'
      ? `only ${network.allow.join(', ') || '(no host yet)'}`
      : INTERNET_LABELS[network.egress].toLowerCase();
  return `Internet: ${internet}; this computer: ${network.host ? 'reachable' : 'closed'}`;
}
