import {
  Alert,
  Button,
  Fieldset,
  Group,
  Modal,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { ApiError } from '../../../../shared/errors';
import { HEALTH_CHECK_DEFAULTS } from '../../../../shared/schemas/services';
import { useCreateService } from '../../api/services';
import { describeError } from '../../api/session';
import { useBases } from '../../api/system';
import { notifyDone } from '../../app/notify';
import { KeyValueEditor, pairsError } from '../boxes/key-value-editor';
import {
  EMPTY_SERVICE,
  ENV_NAME,
  createBody,
  healthPathError,
  nameError,
  portError,
  rangeError,
  serviceFieldOfPath,
  type ServiceValues,
} from './service-form';

const AUTH_HELP = {
  public: 'Anyone on this machine can open the URL.',
  token: 'The browser needs a token that can read the project (once; then a cookie).',
};

/** Create a service: its first deployment starts at once, and the page follows it. */
export function CreateServiceDialog({
  project,
  opened,
  onClose,
}: {
  project: string;
  opened: boolean;
  onClose(): void;
}) {
  const bases = useBases(opened);
  const create = useCreateService(project);
  const form = useForm<ServiceValues>({
    mode: 'controlled',
    initialValues: EMPTY_SERVICE,
    validateInputOnChange: true,
    validate: {
      name: nameError,
      port: portError,
      environment: (v) => pairsError(v, ENV_NAME, 'Variable', 'letters, digits and _, not starting with a digit'),
      health_path: healthPathError,
      interval_s: (v) => rangeError(v, 0.1, 3600, 'The interval'),
      timeout_s: (v) => rangeError(v, 0.1, 600, 'The timeout'),
      healthy_threshold: (v) => rangeError(v, 1, 100, 'The threshold', true),
    },
  });

  useEffect(() => {
    if (!opened) return;
    create.reset();
    form.setValues(EMPTY_SERVICE);
    form.resetDirty();
    form.clearErrors();
  }, [opened]);

  const err = create.error;
  const atField =
    err instanceof ApiError &&
    ((err.errors ?? []).some((e) => serviceFieldOfPath(e.path)) || err.code === 'already_exists');
  const general = err && !atField ? err : null;

  const submit = form.onSubmit(async (v) => {
    try {
      const made = await create.mutateAsync(createBody(v));
      notifyDone(`Created ${made.name}`, 'Its first deployment is starting; the page shows its steps.');
      onClose();
    } catch (failure) {
      if (!(failure instanceof ApiError)) return;
      for (const e of failure.errors ?? []) {
        const field = serviceFieldOfPath(e.path);
        if (field) form.setFieldError(field, e.message);
      }
      if (failure.code === 'already_exists') form.setFieldError('name', failure.message);
    }
  });

  const pending = create.isPending;
  const input = (field: keyof ServiceValues) => ({ ...form.getInputProps(field), errorProps: { role: 'alert' } });
  return (
    <Modal
      opened={opened}
      onClose={() => !pending && onClose()}
      title="Create a service"
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} noValidate aria-label="Create a service">
        <Stack gap="sm">
          <TextInput
            label="Name"
            description="Its URL is http://NAME--project.localhost; lower-case letters, digits and hyphens"
            required
            data-autofocus
            autoComplete="off"
            {...input('name')}
          />
          <Group grow align="start">
            <Select
              label="Base"
              placeholder="default"
              clearable
              data={(bases.data?.items ?? []).map((b) => ({ value: b.name, label: b.name }))}
              {...input('base')}
            />
            <NumberInput
              label="Port"
              description="It serves HTTP on this port in the box"
              required
              min={1}
              max={65535}
              allowDecimal={false}
              allowNegative={false}
              {...input('port')}
            />
          </Group>
          <TextInput
            label="Command"
            description="Run with sh -c; it must keep running and serve the port. Empty: the base’s own command."
            placeholder="exec httpd -f -p 8080 -h /srv"
            autoComplete="off"
            spellCheck={false}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            {...input('command')}
          />
          <KeyValueEditor
            label="Environment"
            noun="variable"
            keyPattern={ENV_NAME}
            keyHint="letters, digits, _"
            pairs={form.values.environment}
            error={form.errors.environment as string | undefined}
            onChange={(p) => form.setFieldValue('environment', p)}
          />
          <Fieldset legend="Health check: a new color takes the URL only after it passes" variant="filled">
            <Group grow align="start">
              <TextInput label="Path" {...input('health_path')} />
              <NumberInput
                label="Interval (s)"
                min={0.1}
                step={0.5}
                decimalScale={2}
                placeholder={String(HEALTH_CHECK_DEFAULTS.interval_s)}
                {...input('interval_s')}
              />
              <NumberInput
                label="Timeout (s)"
                min={0.1}
                step={0.5}
                decimalScale={2}
                placeholder={String(HEALTH_CHECK_DEFAULTS.timeout_s)}
                {...input('timeout_s')}
              />
              <NumberInput
                label="Passes in a row"
                min={1}
                max={100}
                allowDecimal={false}
                placeholder={String(HEALTH_CHECK_DEFAULTS.healthy_threshold)}
                {...input('healthy_threshold')}
              />
            </Group>
            <Text size="xs" c="dimmed" mt={6}>
              A GET of the path on the port; a 2xx or 3xx answer passes.
            </Text>
          </Fieldset>
          <div>
            <Text size="sm" fw={500} id="service-auth-label" mb={4}>
              Access
            </Text>
            <SegmentedControl
              aria-labelledby="service-auth-label"
              data={[
                { value: 'token', label: 'Token' },
                { value: 'public', label: 'Public' },
              ]}
              {...form.getInputProps('auth')}
            />
            <Text size="xs" c="dimmed" mt={4}>
              {AUTH_HELP[form.values.auth]}
            </Text>
            {form.errors.auth && (
              <Text size="xs" c="red" role="alert">
                {form.errors.auth}
              </Text>
            )}
          </div>
          {general && (
            <Alert color="red" title="Could not create the service" role="alert">
              {describeError(general)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              Create and deploy
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
