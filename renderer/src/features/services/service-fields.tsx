import { Fieldset, Group, NumberInput, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { HEALTH_CHECK_DEFAULTS } from '../../../../shared/schemas/services';
import { ChoiceField } from '../../kit/choice-field';
import { fieldProps } from '../../kit/field-props';
import { options } from '../../kit/options';
import type { ServiceValues } from './service-form';

type Form = UseFormReturnType<ServiceValues>;

const AUTH_HELP = {
  public: 'Anyone on this machine can open the URL.',
  token: 'The URL asks for a token that can read the project; opening it from this window signs the browser in.',
};

/** The command as one line for sh -c, in a monospace field; `field` is the form's input props for it. */
export function CommandField({
  field,
  description,
  placeholder,
}: {
  field: ReturnType<Form['getInputProps']>;
  description: string;
  placeholder?: string;
}) {
  return (
    <TextInput
      label="Command"
      description={description}
      placeholder={placeholder}
      autoComplete="off"
      spellCheck={false}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      {...field}
      errorProps={{ role: 'alert' }}
    />
  );
}

/** A duration in seconds, to the hundredth. */
const SECONDS = { min: 0.1, step: 0.5, decimalScale: 2 };

/** The health check a new color must pass before it takes the URL. */
export function HealthCheckFields({ form }: { form: Form }) {
  return (
    <Fieldset legend="Health check: a new color takes the URL only after it passes" variant="filled">
      <Group grow align="start">
        <TextInput label="Path" {...fieldProps(form, 'health_path')} />
        <NumberInput
          label="Interval (s)"
          placeholder={String(HEALTH_CHECK_DEFAULTS.interval_s)}
          {...SECONDS}
          {...fieldProps(form, 'interval_s')}
        />
        <NumberInput
          label="Timeout (s)"
          placeholder={String(HEALTH_CHECK_DEFAULTS.timeout_s)}
          {...SECONDS}
          {...fieldProps(form, 'timeout_s')}
        />
        <NumberInput
          label="Passes in a row"
          min={1}
          max={100}
          allowDecimal={false}
          placeholder={String(HEALTH_CHECK_DEFAULTS.healthy_threshold)}
          {...fieldProps(form, 'healthy_threshold')}
        />
      </Group>
      <Text size="xs" c="dimmed" mt={6}>
        A GET of the path on the port; a 2xx or 3xx answer passes.
      </Text>
    </Fieldset>
  );
}

/** Who may open the service's URL. */
export function AccessField({ form }: { form: Form }) {
  return (
    <ChoiceField
      id="service-auth"
      label="Access"
      data={options({ token: 'Token', public: 'Public' })}
      value={form.values.auth}
      onChange={(v) => form.setFieldValue('auth', v as ServiceValues['auth'])}
      help={
        <Text size="xs" c="dimmed">
          {AUTH_HELP[form.values.auth]}
        </Text>
      }
      error={form.errors.auth}
    />
  );
}
