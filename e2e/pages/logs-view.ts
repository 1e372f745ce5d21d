import { PageObject } from './page-object';

export class LogsView extends PageObject {
  readonly log = this.page.getByRole('log', { name: 'Logs' });
  readonly follow = this.page.getByRole('switch', { name: 'Follow' });
  readonly search = this.page.getByRole('textbox', { name: 'Search the logs' });
  readonly download = this.page.getByRole('button', { name: 'Download logs' });
}
