import { Button, Group, NumberInput, Stack, TagsInput, Text, type TagsInputProps } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { IconWorld, IconWorldOff } from '@tabler/icons-react';
import { useEffect } from 'react';
import type { Box } from '../../../../shared/schemas/box';
import { PublishRequest, URL_AUTH_MODES } from '../../../../shared/schemas/publishing';
import { notifyDone } from '../../app/notify';
import { ChoiceField } from '../../kit/choice-field';
import { FailureAlert } from '../../kit/failure-alert';
import { fieldProps } from '../../kit/field-props';
import { useProblemAtFields } from '../../kit/form-dialog';
import { options } from '../../kit/options';
import { portError } from '../../kit/validators';
import { domainsError, publishFieldOf } from './domains';
import { usePublishBox, useUnpublishBox } from './use-publishing';

type Auth = (typeof URL_AUTH_MODES)[number];

const AUTH_HELP: Record<Auth, string> = {
  public:
    'Public: any program on this machine can open the URL, no token asked. The proxy listens on 127.0.0.1 only, so nothing off this machine reaches it.',
  token:
    'Token: the URL asks for a token with read access to this project (a bearer header, or the cookie a browser gets when you open the URL from here or with box open). For previews you do not want other local programs to see.',
};

interface PublishValues {
  port: number | string;
  ports: string[];
  auth: Auth;
  domains: string[];
}

const valuesOf = (box: Box): PublishValues => ({
  port: box.port ?? '',
  ports: (box.port_urls ?? []).map((p) => String(p.port)),
  auth: box.url_settings?.auth ?? 'token',
  domains: box.published_domains ?? [],
});

/** Port, access (each explained) and extra domains. */
function PublishFields({ form }: { form: UseFormReturnType<PublishValues> }) {
  return (
    <>
      <NumberInput
        label="Port"
        description="The port your server listens on inside the box"
        min={1}
        max={65535}
        allowDecimal={false}
        allowNegative={false}
        w={240}
        required
        {...fieldProps(form, 'port')}
      />
      <ListInput
        label="More ports"
        description="Other ports of the box, each at its own URL: http://PORT.box--project.localhost. Enter after each."
        placeholder="9090"
        {...listField(form, 'ports')}
      />
      <ChoiceField
        id="publish-auth"
        label="Access"
        data={options({ public: 'Public', token: 'Token' })}
        value={form.values.auth}
        onChange={(v) => form.setFieldValue('auth', v as Auth)}
        help={URL_AUTH_MODES.map((m) => (
          <Text
            key={m}
            size="xs"
            c={form.values.auth === m ? undefined : 'dimmed'}
            fw={form.values.auth === m ? 500 : undefined}
          >
            {AUTH_HELP[m]}
          </Text>
        ))}
        error={form.errors.auth}
      />
      <ListInput
        label="Domains"
        description="Extra hostnames for this box, e.g. myapp.localhost (browsers resolve it) or myapp.test (map it to 127.0.0.1 in your hosts file). Enter after each."
        placeholder="myapp.localhost"
        {...listField(form, 'domains')}
      />
    </>
  );
}

/** The core's limits on the lists it takes (PublishRequest's maxItems). */
const MAX_ENTRIES = {
  ports: PublishRequest.properties.ports.maxItems!,
  domains: PublishRequest.properties.domains.maxItems!,
};

/** A list field's props: its form binding, and at most as many entries as the core takes. */
function listField(form: UseFormReturnType<PublishValues>, field: keyof typeof MAX_ENTRIES) {
  return { ...fieldProps(form, field), maxTags: MAX_ENTRIES[field] };
}

/** A list typed as tags: each entry ends with Enter, a comma or a space. */
function ListInput(props: TagsInputProps) {
  return <TagsInput splitChars={[',', ' ']} clearable {...props} />;
}

/** The form's rules, as the core's: a port, at most MAX_ENTRIES.domains valid domains, port numbers. */
const VALIDATE = {
  port: (v: PublishValues['port']) => portError(v, 'The port your server listens on inside the box is needed'),
  domains: (v: string[]) =>
    v.length > MAX_ENTRIES.domains ? `At most ${MAX_ENTRIES.domains} domains` : domainsError(v),
  ports: (v: string[]) => {
    const wrong = v.find((p) => portError(p, '') !== null);
    return wrong === undefined ? null : `"${wrong}" is not a port number (1 to 65535)`;
  },
};

/** Port, access and domains; Publish (or Update) and Unpublish. A refusal about a field lands at it. */
export function PublishForm({ box }: { box: Box }) {
  const publish = usePublishBox(box.project);
  const unpublish = useUnpublishBox(box.project);
  const published = box.url !== null;
  const form = useForm<PublishValues>({
    mode: 'controlled',
    initialValues: valuesOf(box),
    validateInputOnChange: true,
    validate: VALIDATE,
  });
  // What is published changes from elsewhere too (the CLI, an event): start again from it.
  const publishedNow = JSON.stringify(valuesOf(box));
  useEffect(() => {
    form.setValues(valuesOf(box));
    form.resetDirty();
  }, [box.url, publishedNow]);
  // A domain another box has (409 already_exists): the message names that box.
  const general = useProblemAtFields(form, publish.error ?? unpublish.error, publishFieldOf, { field: 'domains' });

  const submit = form.onSubmit((v) => {
    unpublish.reset();
    const domains = [...new Set(v.domains.map((d) => d.trim().toLowerCase()))];
    publish.mutate(
      {
        name: box.name,
        body: { port: Number(v.port), ports: [...new Set(v.ports.map(Number))], auth: v.auth, domains },
      },
      {
        onSuccess: (next) =>
          notifyDone(
            published ? `Updated ${box.name}'s URL` : `Published ${box.name}`,
            `${next.url} (${next.url_settings?.auth ?? v.auth}).`,
          ),
      },
    );
  });
  const doUnpublish = () => {
    publish.reset();
    unpublish.mutate(box.name, {
      onSuccess: () =>
        notifyDone(`Unpublished ${box.name}`, 'Its URL and domains answer 404 now; the box keeps its port.'),
    });
  };

  return (
    <form onSubmit={submit} noValidate aria-label={`Publish ${box.name}`}>
      <Stack gap="sm">
        <PublishFields form={form} />
        <FailureAlert
          failure={
            general
              ? { title: published ? 'Could not change the publication' : 'Could not publish', error: general }
              : null
          }
          onDismiss={() => (publish.reset(), unpublish.reset())}
        />
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
              onClick={doUnpublish}
              loading={unpublish.isPending}
              disabled={publish.isPending}
            >
              Unpublish
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}
