import { render } from 'preact';
import { ConsoleShell } from './console-shell';
import './console.css';

render(<ConsoleShell />, document.getElementById('console-root')!);
