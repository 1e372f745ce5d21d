import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconWorld, IconWorldOff } from '@tabler/icons-react';
import { useEffect } from 'react';
import { ApiError } from '../../../../shared/errors';
import { URL_AUTH_MODES } from '../../../../shared/schemas/publishing';
import { usePublishBox, useUnpublishBox } from '../../api/publishing';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import type { DetailTabProps } from '../boxes/detail-tabs';
import { domainsError, publishFieldOfPath } from './domains';
import { PublishedUrl } from './published-url';

type Auth = (typeof URL_AUTH_MODES)[number];

const AUTH_HELP: Record<Auth, string> = {
  public:
    'Public: any program on this machine can open the URL, no token asked. The proxy listens on 127.0.0.1 only, so nothing off this machine reaches it.',
  token:
    'Token: the URL asks for a token with read access to this project (a bearer header, or a cookie the proxy sets after ?token= once). For previews you do not want other local programs to see.',
};

interface Values {
  port: number | string;
  auth: Auth;
  domains: string[];
}

/** Publish a box's web server at its preview URL: port, access, extra domains; update or unpublish. */
export function PublishTab({ box }: DetailTabProps) {
  const publish = usePublishBox(box.project);
  const unpublish = useUnpublishBox(box.project);
  const published = box.url !== null;
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: {
      port: box.port ?? '',
      auth: box.url_settings?.auth ?? 'token',
      domains: box.published_domains ?? [],
    },
    validateInputOnChange: true,
    validate: {
      port: (v) =>
        typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535
          ? null
          : 'The port your server listens on inside the box: a whole number from 1 to 65535',
      domains: (v) => (v.length > 32 ? 'At most 32 domains' : domainsError(v)),
    },
  });

  // What is published changes from elsewhere too (the CLI, an event): start again from it.
  useEffect(() => {
    form.setValues({
      port: box.port ?? '',
      auth: box.url_settings?.auth ?? 'token',
      domains: box.published_domains ?? [],
    });
    form.resetDirty();
  }, [box.url, box.port, box.url_settings?.auth, (box.published_domains ?? []).join(',')]);

  const err = publish.error ?? unpublish.error;
  const atField = err instanceof ApiError && (err.errors ?? []).some((e) => publishFieldOfPath(e.path));
  const general = err && !atField ? err : null;

  const submit = form.onSubmit(async (v) => {
    unpublish.reset();
    try {
      const domains = [...new Set(v.domains.map((d) => d.trim().toLowerCase()))];
      const next = await publish.mutateAsync({ name: box.name, body: { port: Number(v.port), auth: v.auth, domains } });
      notifyDone(
        published ? `Updated ${box.name}'s URL` : `Published ${box.name}`,
        `${next.url} (${next.url_settings?.auth ?? v.auth}).`,
      );
    } catch (failure) {
      if (!(failure instanceof ApiError)) return;
      for (const e of failure.errors ?? []) {
        const field = publishFieldOfPath(e.path);
        if (field) form.setFieldError(field, e.message);
      }
      // A domain another box has: the message names that box.
      if (failure.code === 'already_exists') form.setFieldError('domains', failure.message);
    }
  });

  const doUnpublish = async () => {
    publish.reset();
    try {
      await unpublish.mutateAsync(box.name);
      notifyDone(`Unpublished ${box.name}`, 'Its URL and domains answer 404 now; the box keeps its port.');
    } catch {
      // shown below the buttons
    }
  };

  return (
    <Paper withBorder p="md" maw={1200} component="section" aria-labelledby="publish-heading">
      <Stack gap="md">
        <Group gap="sm">
          <Title order={3} id="publish-heading">
            Publish
          </Title>
          {published ? (
            <Badge color="teal" variant="light" leftSection={<IconWorld size={12} />}>
              Published, {box.url_settings?.auth}
            </Badge>
          ) : (
            <Badge color="gray" variant="light">
              Not published
            </Badge>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          Serve a web server running in this box at a stable URL on this machine, through Boxdesk’s proxy.
        </Text>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xl">
          <form onSubmit={submit} noValidate aria-label={`Publish ${box.name}`}>
            <Stack gap="sm">
              <NumberInput
                label="Port"
                description="The port your server listens on inside the box"
                min={1}
                max={65535}
                allowDecimal={false}
                allowNegative={false}
                w={240}
                required
                {...form.getInputProps('port')}
                errorProps={{ role: 'alert' }}
              />
              <div>
                <Text size="sm" fw={500} id="publish-auth-label" mb={4}>
                  Access
                </Text>
                <SegmentedControl
                  aria-labelledby="publish-auth-label"
                  aria-describedby="publish-auth-help"
                  data={[
                    { value: 'public', label: 'Public' },
                    { value: 'token', label: 'Token' },
                  ]}
                  {...form.getInputProps('auth')}
                />
                <Stack gap={2} mt={6} id="publish-auth-help">
                  {URL_AUTH_MODES.map((m) => (
                    <Text
                      key={m}
                      size="xs"
                      c={form.values.auth === m ? undefined : 'dimmed'}
                      fw={form.values.auth === m ? 500 : undefined}
                    >
                      {AUTH_HELP[m]}
                    </Text>
                  ))}
                </Stack>
                {form.errors.auth && (
                  <Text size="xs" c="red" role="alert">
                    {form.errors.auth}
                  </Text>
                )}
              </div>
              <TagsInput
                label="Domains"
                description="Extra hostnames for this box, e.g. myapp.localhost (browsers resolve it) or myapp.test (map it to 127.0.0.1 in your hosts file). Enter after each."
                placeholder="myapp.localhost"
                maxTags={32}
                splitChars={[',', ' ']}
                clearable
                {...form.getInputProps('domains')}
                errorProps={{ role: 'alert' }}
              />
              {general && (
                <Alert
                  color="red"
                  title={published ? 'Could not change the publication' : 'Could not publish'}
                  role="alert"
                >
                  <Text size="sm">{describeError(general)}</Text>
                </Alert>
              )}
              <Group gap="xs">
                <Button
                  type="submit"
                  leftSection={<IconWorld size={16} />}
                  loading={publish.isPending}
                  disabled={unpublish.isPending}
                >
                  {published ? 'Update' : 'Publish'}
                </Button>
                {published && (
                  <Button
                    color="red"
                    variant="light"
                    leftSection={<IconWorldOff size={16} />}
                    onClick={() => void doUnpublish()}
                    loading={unpublish.isPending}
                    disabled={publish.isPending}
                  >
                    Unpublish
                  </Button>
                )}
              </Group>
            </Stack>
          </form>
          {published ? (
            <PublishedUrl box={box} />
          ) : (
            <Text size="sm" c="dimmed">
              Not published. Publishing gives this box a URL on Boxdesk’s proxy,{' '}
              <Code>
                http://{box.name}--{box.project}.localhost:PORT
              </Code>
              , that browsers on this machine resolve by themselves.
            </Text>
          )}
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}
