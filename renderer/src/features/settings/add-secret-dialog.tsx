import { PasswordInput, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { HEADER_NAME_PATTERN, SECRET_HOST_PATTERN, secretEnvName } from '../../../../shared/schemas/secrets';
import { useCreateSecret } from '../../api/secrets';
import type { DialogProps } from '../../kit/dialog-props';
import { fieldProps } from '../../kit/field-props';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { dnsLabelError } from '../../kit/validators';

interface SecretValues {
  name: string;
  value: string;
  hosts: string;
  header: string;
}

const HOST = new RegExp(SECRET_HOST_PATTERN);
const HEADER = new RegExp(HEADER_NAME_PATTERN);

function hostLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter(Boolean);
}

const fieldOf = (path: string): keyof SecretValues | null =>
  path.startsWith('hosts') ? 'hosts' : path === 'name' || path === 'value' || path === 'header' ? path : null;

/** A secret: its name, its value (a password field, never shown again), its hosts and its header. */
export function AddSecretDialog({ opened, onClose }: DialogProps) {
  const create = useCreateSecret();
  const form = useForm<SecretValues>({
    mode: 'controlled',
    initialValues: { name: '', value: '', hosts: '', header: '' },
    validateInputOnChange: true,
    validate: {
      name: dnsLabelError,
      value: (v) => (v === '' ? 'The value is needed' : /[\r\n]/.test(v) ? 'One line only' : null),
      hosts: (v) => {
        const hosts = hostLines(v);
        if (!hosts.length) return 'At least one host the value may go to';
        const bad = hosts.find((h) => !HOST.test(h));
        return bad ? `${bad}: a host name like api.example.com or *.example.com (no scheme, port or path)` : null;
      },
      header: (v) => (v === '' || HEADER.test(v) ? null : 'A header name like X-Api-Key'),
    },
  });
  const dialog = useFormDialog({ opened, onClose, form, mutation: create, fieldOf, taken: { field: 'name' } });
  const submit = form.onSubmit((v) =>
    create.mutate(
      { name: v.name, value: v.value, hosts: hostLines(v.hosts), ...(v.header ? { header: v.header } : {}) },
      {
        onSuccess: (made) => dialog.done(`Added ${made.name}`, `Boxes given it see a placeholder in $${made.env}.`),
      },
    ),
  );
  const env = form.values.name && !dnsLabelError(form.values.name) ? secretEnvName(form.values.name) : 'NAME';
  return (
    <FormDialog
      {...dialog}
      title="Add a secret"
      submitLabel="Add secret"
      onSubmit={submit}
      problemTitle="Could not add the secret"
    >
      <TextInput
        label="Name"
        description={`Boxes given it see a placeholder in $${env}`}
        required
        data-autofocus
        {...fieldProps(form, 'name')}
      />
      <PasswordInput
        label="Value"
        description="Write-only: never shown again, never in a box"
        required
        autoComplete="off"
        {...fieldProps(form, 'value')}
      />
      <Textarea
        label="Hosts"
        description="One a line: the hosts whose requests get the value (*.example.com for its subdomains)"
        placeholder={'api.openai.com'}
        required
        autosize
        minRows={2}
        {...fieldProps(form, 'hosts')}
      />
      <TextInput
        label="Header"
        description="Added with the value where a request lacks it; empty: Authorization: Bearer <value>"
        placeholder="X-Api-Key"
        {...fieldProps(form, 'header')}
      />
    </FormDialog>
  );
}
