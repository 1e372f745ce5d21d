import { Alert, Button, Checkbox, Code, CopyButton, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { SCOPES, type Scope, type TokenCreated } from '../../../../shared/schemas/system';
import { fieldProps } from '../../kit/field-props';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { isDnsLabel } from '../../kit/validators';
import { useCreateToken } from './use-tokens';
import type { DialogProps } from '../../kit/dialog-props';

const SCOPE_HELP: Record<Scope, string> = {
  read: 'read: list and watch',
  write: 'write: create, change, stop, delete',
  exec: 'exec: commands and consoles',
  admin: 'admin: tokens and bases',
};

interface TokenValues {
  name: string;
  scopes: string[];
  project: string;
}

const tokenFieldOf = (path: string): keyof TokenValues | null =>
  path === 'name' || path === 'project' ? path : path.startsWith('scopes') ? 'scopes' : null;

/** The new token's secret, shown this once, with a copy button. */
function Secret({ created, onClose }: { created: TokenCreated; onClose(): void }) {
  return (
    <Stack>
      <Alert color="yellow" title="Copy the token now">
        This is the only time it is shown. Store it where your scripts can read it.
      </Alert>
      <Group gap="xs" wrap="nowrap">
        <Code style={{ wordBreak: 'break-all', flex: 1 }} aria-label="New token">
          {created.token}
        </Code>
        <CopyButton value={created.token}>
          {({ copied, copy }) => (
            <Button
              size="xs"
              variant={copied ? 'light' : 'filled'}
              color={copied ? 'green' : undefined}
              leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
              onClick={copy}
            >
              {copied ? 'Copied' : 'Copy token'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Group justify="flex-end">
        <Button onClick={onClose}>Done</Button>
      </Group>
    </Stack>
  );
}

/** A token with a name, scopes and (optionally) one project; then its secret, once. */
export function CreateTokenDialog({ opened, onClose }: DialogProps) {
  const create = useCreateToken();
  const form = useForm<TokenValues>({
    mode: 'controlled',
    initialValues: { name: '', scopes: ['read'], project: '' },
    validateInputOnChange: true,
    validate: {
      name: (v) =>
        v.trim() === '' ? 'A name says what the token is for' : v.length > 100 ? 'At most 100 characters' : null,
      scopes: (v) => (v.length === 0 ? 'Pick at least one scope' : null),
      project: (v) => (v === '' || isDnsLabel(v) ? null : 'A project name: lower-case letters, digits and hyphens'),
    },
  });
  const dialog = useFormDialog({ opened, onClose, form, mutation: create, fieldOf: tokenFieldOf });
  const submit = form.onSubmit((v) =>
    create.mutate({ name: v.name.trim(), scopes: v.scopes as Scope[], ...(v.project ? { project: v.project } : {}) }),
  );
  return (
    <>
      <FormDialog
        {...dialog}
        opened={opened && !create.data}
        title="Create a token"
        submitLabel="Create token"
        onSubmit={submit}
        problemTitle="Could not create the token"
      >
        <TextInput label="Name" required data-autofocus {...fieldProps(form, 'name')} />
        <Checkbox.Group label="Scopes" required {...fieldProps(form, 'scopes')}>
          <Stack gap={4} mt={4}>
            {SCOPES.map((s) => (
              <Checkbox key={s} value={s} label={SCOPE_HELP[s]} />
            ))}
          </Stack>
        </Checkbox.Group>
        <TextInput
          label="Project"
          description="Only this project; empty: all projects"
          {...fieldProps(form, 'project')}
        />
      </FormDialog>
      <Modal
        opened={opened && !!create.data}
        onClose={onClose}
        title={`Token ${create.data?.name ?? ''} created`}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {create.data && <Secret created={create.data} onClose={onClose} />}
      </Modal>
    </>
  );
}
