import { Code, ScrollArea } from '@mantine/core';
import { useEffect, useRef } from 'react';

/** A log as it streams (a build's, a box up's), kept scrolled to its end. */
export function LiveLog({ text, label, waiting }: { text: string; label: string; waiting: string }) {
  const viewport = useRef<HTMLDivElement>(null);
  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight });
  }, [text]);
  return (
    <ScrollArea h={240} viewportRef={viewport} type="auto">
      <Code block role="log" aria-label={label} style={{ whiteSpace: 'pre-wrap', minHeight: 240 }}>
        {text || waiting}
      </Code>
    </ScrollArea>
  );
}
