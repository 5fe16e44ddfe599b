import './style.css';
import { App } from './app/app';

const app = new App();
app.start();
// For tests and the curious: the app object (no data flows in through it).
(window as unknown as { kafkasim: App }).kafkasim = app;
