import { Checkbox, Input, MultiSelect, SegmentedControl, Stack, Textarea } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { ResolvedNetwork } from '../../../../shared/schemas/network';
import { useSecrets } from '../../api/secrets';
import { fieldProps } from '../../kit/field-props';
import { options } from '../../kit/options';
import type { BoxValues } from './box-form';

export const INTERNET_LABELS = { open: 'Open', none: 'Off', allowlist: 'Only these hosts' } as const;

/** "Internet: open / off / only these hosts", the hosts when only those, and whether this computer is reachable. */
export function NetworkFields({ form }: { form: UseFormReturnType<BoxValues> }) {
  return (
    <Stack gap="xs">
      <Input.Wrapper
        label="Internet"
        description="Applies at once, from the next connection on; boxes of the project always reach each other by name"
        error={form.errors.egress}
        errorProps={{ role: 'alert' }}
      >
        <SegmentedControl aria-label="Internet" data={options(INTERNET_LABELS)} {...form.getInputProps('egress')} />
      </Input.Wrapper>
      {form.values.egress === 'allowlist' && (
        <Textarea
          label="Allowed hosts"
          description="One a line: an IP address, a CIDR (10.0.0.0/8), a host name or *.domain (through the egress proxy), each optionally with :port"
          placeholder={'203.0.113.7\napi.example.com:443'}
          autosize
          minRows={2}
          {...fieldProps(form, 'allow')}
        />
      )}
      <Checkbox
        label="Can reach this computer (its own addresses)"
        {...fieldProps(form, 'host', { type: 'checkbox' })}
      />
      <SecretsField form={form} />
    </Stack>
  );
}

/** The secrets the box holds placeholders of, picked from those added in Settings. */
function SecretsField({ form }: { form: UseFormReturnType<BoxValues> }) {
  const secrets = useSecrets();
  const items = secrets.data?.items ?? [];
  return (
    <MultiSelect
      label="Secrets"
      description={
        items.length || form.values.secrets.length
          ? 'The box sees a placeholder in $NAME; the egress proxy puts the value into its requests to the secret’s hosts only'
          : 'None yet: add secrets in Settings'
      }
      placeholder={items.length ? 'Pick secrets' : undefined}
      data={[...new Set([...items.map((s) => s.name), ...form.values.secrets])].map((name) => {
        const secret = items.find((s) => s.name === name);
        return { value: name, label: secret ? `${name} → ${secret.hosts.join(', ')}` : name };
      })}
      searchable
      clearable
      {...fieldProps(form, 'secrets')}
    />
  );
}

/** The box's network in a sentence, for its details. */
export function networkText(network: ResolvedNetwork, secrets: readonly string[] = []): string {
  const internet =
    network.egress === 'allowlist'
      ? `only ${network.allow.join(', ') || '(no host yet)'}`
      : INTERNET_LABELS[network.egress].toLowerCase();
  const held = secrets.length ? `; secrets: ${secrets.join(', ')}` : '';
  return `Internet: ${internet}; this computer: ${network.host ? 'reachable' : 'closed'}${held}`;
}
