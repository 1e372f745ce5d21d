import { Code, Select, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Service } from '../../../../shared/schemas/services';
import { fieldProps } from '../../kit/field-props';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { KeyValueEditor } from '../../kit/key-value-editor';
import { bindPairs, pairsRule, type Pair } from '../../kit/pairs';
import { useBases } from '../bases/use-bases';
import { CommandField } from './service-fields';
import { commandText, deployBody, serviceFieldOf } from './service-form';
import { useDeploy } from './use-services';
import type { DialogProps } from '../../kit/dialog-props';

interface DeployValues {
  base: string | null;
  command: string;
  environment: Pair[];
}

const deployFieldOf = (path: string) => {
  const field = serviceFieldOf(path);
  return field === 'base' || field === 'command' || field === 'environment' ? field : null;
};

/** The variables the service has now, under the editor of changes. */
function CurrentEnvironment({ environment }: { environment: Record<string, string> }) {
  const current = Object.entries(environment);
  return (
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
  );
}

/** Deploy a service, optionally on another base, with another command or changed variables. */
export function DeployDialog({ service, opened, onClose }: DialogProps & { service: Service }) {
  const bases = useBases(opened);
  const deploy = useDeploy(service.project);
  const start = (): DeployValues => ({ base: service.base, command: commandText(service.command), environment: [] });
  const form = useForm<DeployValues>({
    mode: 'controlled',
    initialValues: start(),
    validateInputOnChange: true,
    validate: { environment: pairsRule('environment') },
  });
  const dialog = useFormDialog({
    opened,
    onClose,
    form,
    mutation: deploy,
    fieldOf: deployFieldOf,
    onOpen: () => {
      deploy.reset();
      form.setValues(start());
      form.clearErrors();
    },
  });
  const submit = form.onSubmit((v) =>
    deploy.mutate({ name: service.name, body: deployBody(v, service) }, { onSuccess: onClose }),
  );

  return (
    <FormDialog
      {...dialog}
      title={`Deploy ${service.name}`}
      size="lg"
      submitLabel="Deploy"
      onSubmit={submit}
      problemTitle="Could not start the deployment"
    >
      <Text size="sm" c="dimmed">
        The next color starts beside the live one and takes the URL once it passes its health check; if it fails, the
        live color keeps serving. Changes here stay in the service’s spec.
      </Text>
      <Select
        label="Base"
        data={(bases.data?.items ?? []).map((b) => ({ value: b.name, label: b.name }))}
        {...fieldProps(form, 'base')}
      />
      <CommandField
        field={form.getInputProps('command')}
        description="Run with sh -c; leave it as it is to keep the current one."
      />
      <KeyValueEditor kind="environment" label="Environment changes" {...bindPairs(form, 'environment')} />
      <CurrentEnvironment environment={service.environment} />
    </FormDialog>
  );
}
