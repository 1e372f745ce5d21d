import { Alert, Button, Checkbox, Code, CopyButton, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect } from 'react';
import { DNS_LABEL_PATTERN } from '../../../../shared/schemas/common';
import { SCOPES, type Scope, type TokenCreated } from '../../../../shared/schemas/system';
import { describeError } from '../../api/session';
import { useCreateToken } from '../../api/system';

const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);

const SCOPE_HELP: Record<Scope, string> = {
  read: 'read: list and watch',
  write: 'write: create, change, stop, delete',
  exec: 'exec: commands and consoles',
  admin: 'admin: tokens and bases',
};

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

export function CreateTokenDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const create = useCreateToken();
  const form = useForm<{ name: string; scopes: string[]; project: string }>({
    mode: 'controlled',
    initialValues: { name: '', scopes: ['read'], project: '' },
    validateInputOnChange: true,
    validate: {
      name: (v) =>
        v.trim() === '' ? 'A name says what the token is for' : v.length > 100 ? 'At most 100 characters' : null,
      scopes: (v) => (v.length === 0 ? 'Pick at least one scope' : null),
      project: (v) => (v === '' || DNS_LABEL.test(v) ? null : 'A project name: lower-case letters, digits and hyphens'),
    },
  });
  useEffect(() => {
    if (!opened) return;
    create.reset();
    form.reset();
  }, [opened]);

  const submit = form.onSubmit((v) =>
    create.mutate({ name: v.name.trim(), scopes: v.scopes as Scope[], ...(v.project ? { project: v.project } : {}) }),
  );
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={create.data ? `Token ${create.data.name} created` : 'Create a token'}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {create.data ? (
        <Secret created={create.data} onClose={onClose} />
      ) : (
        <form onSubmit={submit} noValidate aria-label="Create a token">
          <Stack gap="sm">
            <TextInput
              label="Name"
              required
              data-autofocus
              {...form.getInputProps('name')}
              errorProps={{ role: 'alert' }}
            />
            <Checkbox.Group label="Scopes" required {...form.getInputProps('scopes')} errorProps={{ role: 'alert' }}>
              <Stack gap={4} mt={4}>
                {SCOPES.map((s) => (
                  <Checkbox key={s} value={s} label={SCOPE_HELP[s]} />
                ))}
              </Stack>
            </Checkbox.Group>
            <TextInput
              label="Project"
              description="Only this project; empty: all projects"
              {...form.getInputProps('project')}
              errorProps={{ role: 'alert' }}
            />
            {create.isError && (
              <Alert color="red" role="alert" title="Could not create the token">
                {describeError(create.error)}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create token
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
