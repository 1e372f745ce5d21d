import { Alert, Button, Code, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { ApiError } from '../../../../shared/errors';
import type { Service } from '../../../../shared/schemas/services';
import { useDeploy } from '../../api/services';
import { describeError } from '../../api/session';
import { useBases } from '../../api/system';
import { KeyValueEditor, pairsError, type Pair } from '../boxes/key-value-editor';
import { ENV_NAME, commandText, deployBody, serviceFieldOfPath } from './service-form';

interface Values {
  base: string | null;
  command: string;
  environment: Pair[];
}

/** Deploy a service, optionally on another base, with another command or changed variables. */
export function DeployDialog({ service, opened, onClose }: { service: Service; opened: boolean; onClose(): void }) {
  const bases = useBases(opened);
  const deploy = useDeploy(service.project);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { base: service.base, command: commandText(service.command), environment: [] },
    validateInputOnChange: true,
    validate: {
      environment: (v) => pairsError(v, ENV_NAME, 'Variable', 'letters, digits and _, not starting with a digit'),
    },
  });

  useEffect(() => {
    if (!opened) return;
    deploy.reset();
    form.setValues({ base: service.base, command: commandText(service.command), environment: [] });
    form.clearErrors();
  }, [opened]);

  const err = deploy.error;
  const atField = err instanceof ApiError && (err.errors ?? []).some((e) => serviceFieldOfPath(e.path));
  const general = err && !atField ? err : null;

  const submit = form.onSubmit(async (v) => {
    try {
      await deploy.mutateAsync({ name: service.name, body: deployBody(v, service) });
      onClose();
    } catch (failure) {
      if (!(failure instanceof ApiError)) return;
      for (const e of failure.errors ?? []) {
        const field = serviceFieldOfPath(e.path);
        if (field === 'base' || field === 'command' || field === 'environment') form.setFieldError(field, e.message);
      }
    }
  });

  const current = Object.entries(service.environment);
  const pending = deploy.isPending;
  return (
    <Modal
      opened={opened}
      onClose={() => !pending && onClose()}
      title={`Deploy ${service.name}`}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} noValidate aria-label={`Deploy ${service.name}`}>
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            The next color starts beside the live one and takes the URL once it passes its health check; if it fails,
            the live color keeps serving. Changes here stay in the service’s spec.
          </Text>
          <Select
            label="Base"
            data={(bases.data?.items ?? []).map((b) => ({ value: b.name, label: b.name }))}
            {...form.getInputProps('base')}
            errorProps={{ role: 'alert' }}
          />
          <TextInput
            label="Command"
            description="Run with sh -c; leave it as it is to keep the current one."
            autoComplete="off"
            spellCheck={false}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            {...form.getInputProps('command')}
            errorProps={{ role: 'alert' }}
          />
          <KeyValueEditor
            label="Environment changes"
            noun="variable"
            keyPattern={ENV_NAME}
            keyHint="letters, digits, _"
            pairs={form.values.environment}
            error={form.errors.environment as string | undefined}
            onChange={(p) => form.setFieldValue('environment', p)}
          />
          <Text size="xs" c="dimmed">
            Set or override variables; the others stay.{' '}
            {current.length ? (
              <>
                Now: <Code>{current.map(([k, v]) => `${k}=${v}`).join(' ')}</Code>
              </>
            ) : (
              'None set now.'
            )}
          </Text>
          {general && (
            <Alert color="red" title="Could not start the deployment" role="alert">
              {describeError(general)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              Deploy
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
