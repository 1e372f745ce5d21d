import { Alert, Button, Center, Code, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createClient, describeError } from '../api/session';
import { AppTitle } from './app-title';
import { EngineHealth } from './engine-health';

/** The fallback when no sign-in URL or Electron token brought one: paste a token, checked before it is kept. */
export function SignInPage({ onSignedIn, message }: { onSignedIn: (token: string) => void; message: string | null }) {
  const [value, setValue] = useState('');
  const signIn = useMutation({
    mutationFn: (token: string) => createClient(token).listBases(),
    onSuccess: (_bases, token) => onSignedIn(token),
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = value.trim();
    if (token) signIn.mutate(token);
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={460} component="main">
        <Stack>
          <Group justify="space-between">
            <AppTitle size="h2" />
            <EngineHealth />
          </Group>
          {message && (
            <Alert color="orange" title="Signed out" role="alert">
              {message}
            </Alert>
          )}
          <form onSubmit={submit} noValidate aria-labelledby="sign-in-heading">
            <Stack gap="sm">
              <Title order={2} size="h4" id="sign-in-heading">
                Sign in
              </Title>
              <Text size="sm" c="dimmed">
                Open the sign-in address the core printed when it started, or paste the token from the{' '}
                <Code>token</Code> file in its data directory.
              </Text>
              <PasswordInput
                label="Access token"
                autoComplete="off"
                spellCheck={false}
                value={value}
                onChange={(e) => setValue(e.currentTarget.value)}
                error={signIn.isError ? describeError(signIn.error) : undefined}
                aria-invalid={signIn.isError}
                errorProps={{ role: 'alert' }}
              />
              <Button type="submit" loading={signIn.isPending} disabled={value.trim() === ''}>
                Sign in
              </Button>
            </Stack>
          </form>
        </Stack>
      </Paper>
    </Center>
  );
}
