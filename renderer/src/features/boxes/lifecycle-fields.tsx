import { Fieldset, Group, NumberInput, Select, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { Box } from '../../../../shared/schemas/box';
import { fieldProps } from '../../kit/field-props';
import { Time } from '../../kit/time';
import { UNITS, type Clock, type LifecycleValues } from './lifecycle-form';

type Form = UseFormReturnType<{ lifecycle: LifecycleValues }>;

/** Each clock as a sentence: "Pause after [10] [minutes] idle". */
const SENTENCES: Record<Clock, [string, string]> = {
  pause: ['Pause after', 'idle'],
  stop: ['Stop after', 'idle'],
  remove: ['Delete', 'after it stops'],
  ttl: ['Delete', 'from now, whatever it is doing'],
};

const unitOptions = Object.keys(UNITS).map((u) => ({ value: u, label: u }));

function ClockRow({ form, clock }: { form: Form; clock: Clock }) {
  const [before, after] = SENTENCES[clock];
  const name = `${before} … ${after}`;
  return (
    <Group gap="xs" align="start" wrap="nowrap">
      <Text size="sm" pt={6} w={90}>
        {before}
      </Text>
      <NumberInput
        aria-label={name}
        placeholder="never"
        min={1}
        allowDecimal={false}
        w={110}
        {...fieldProps(form, `lifecycle.${clock}.amount`)}
      />
      <Select
        aria-label={`${name}: unit`}
        data={unitOptions}
        allowDeselect={false}
        w={120}
        {...form.getInputProps(`lifecycle.${clock}.unit`)}
      />
      <Text size="sm" pt={6}>
        {after}
      </Text>
    </Group>
  );
}

/** The box's lifecycle clocks in words; an empty amount is "never". */
export function LifecycleFields({ form, box }: { form: Form; box?: Box }) {
  const expires = box?.lifecycle?.expires_at;
  return (
    <Fieldset legend="Sleep and clean-up" variant="unstyled">
      <Text size="xs" c="dimmed" mb="xs">
        Idle: no console, exec, files or request to its URL. A paused box keeps its processes and wakes on the next use.
        Leave empty for never.
      </Text>
      {(['pause', 'stop', 'remove', 'ttl'] as const).map((clock) => (
        <ClockRow key={clock} form={form} clock={clock} />
      ))}
      {expires && (
        <Text size="xs" c="dimmed" mt={4}>
          Expires <Time at={expires} /> unless a new time is given.
        </Text>
      )}
    </Fieldset>
  );
}
