import { Group, NumberInput, Select } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useSystem } from '../../api/system';
import { fieldProps } from '../../kit/field-props';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { KeyValueEditor } from '../../kit/key-value-editor';
import { bindPairs } from '../../kit/pairs';
import { NameInput } from '../../kit/name-input';
import { useBases } from '../bases/use-bases';
import { AccessField, CommandField, HealthCheckFields } from './service-fields';
import {
  EMPTY_SERVICE,
  createBody,
  serviceFieldOf,
  serviceRules,
  serviceUrl,
  type ServiceValues,
} from './service-form';
import { useCreateService } from './use-services';
import type { ProjectDialogProps } from '../../kit/dialog-props';

/** Name (and the URL it gives), base and port. */
function ServiceBasics({ form, bases, url }: { form: UseFormReturnType<ServiceValues>; bases: string[]; url: string }) {
  return (
    <>
      <NameInput
        description={`Its URL will be ${url}; lower-case letters, digits and hyphens`}
        {...form.getInputProps('name')}
      />
      <Group grow align="start">
        <Select label="Base" placeholder="default" clearable data={bases} {...fieldProps(form, 'base')} />
        <NumberInput
          label="Port"
          description="It serves HTTP on this port in the box"
          required
          min={1}
          max={65535}
          allowDecimal={false}
          allowNegative={false}
          {...fieldProps(form, 'port')}
        />
      </Group>
    </>
  );
}

/** Create a service: its first deployment starts at once, and the page follows it. */
export function CreateServiceDialog({ project, opened, onClose }: ProjectDialogProps) {
  const bases = useBases(opened);
  const system = useSystem(opened);
  const create = useCreateService(project);
  const form = useForm<ServiceValues>({
    mode: 'controlled',
    initialValues: EMPTY_SERVICE,
    validateInputOnChange: true,
    validate: serviceRules,
  });
  const dialog = useFormDialog({
    opened,
    onClose,
    form,
    mutation: create,
    fieldOf: serviceFieldOf,
    taken: { field: 'name' },
  });
  const submit = form.onSubmit((v) =>
    create.mutate(createBody(v), {
      onSuccess: (made) =>
        dialog.done(`Created ${made.name}`, `Its first deployment is starting; it will serve ${made.url}.`),
    }),
  );

  return (
    <FormDialog
      {...dialog}
      title="Create a service"
      size="lg"
      submitLabel="Create and deploy"
      onSubmit={submit}
      problemTitle="Could not create the service"
    >
      <ServiceBasics
        form={form}
        bases={(bases.data?.items ?? []).map((b) => b.name)}
        url={serviceUrl(form.values.name, project, system.data?.proxy_port)}
      />
      <CommandField
        field={form.getInputProps('command')}
        description="Run with sh -c; it must keep running and serve the port. Empty: the base’s own command."
        placeholder="exec httpd -f -p 8080 -h /srv"
      />
      <KeyValueEditor kind="environment" label="Environment" {...bindPairs(form, 'environment')} />
      <HealthCheckFields form={form} />
      <AccessField form={form} />
    </FormDialog>
  );
}
