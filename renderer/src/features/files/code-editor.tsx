import { Paper, useComputedColorScheme } from '@mantine/core';
import { EditorView } from '@codemirror/view';
import CodeMirror from '@uiw/react-codemirror';
import { useMemo } from 'react';

/** CodeMirror with the window's colour scheme; its text area is named `label` for screen readers and tests. */
export function CodeEditor({
  value,
  onChange,
  readOnly,
  label,
}: {
  value: string;
  onChange(v: string): void;
  readOnly: boolean;
  label: string;
}) {
  const scheme = useComputedColorScheme('light');
  const extensions = useMemo(
    () => [EditorView.contentAttributes.of({ 'aria-label': label }), EditorView.lineWrapping],
    [label],
  );
  return (
    <Paper withBorder radius="sm" style={{ overflow: 'hidden' }}>
      <CodeMirror
        value={value}
        onChange={onChange}
        readOnly={readOnly}
        editable={!readOnly}
        theme={scheme}
        height="60vh"
        extensions={extensions}
        basicSetup={{ foldGutter: false }}
      />
    </Paper>
  );
}
