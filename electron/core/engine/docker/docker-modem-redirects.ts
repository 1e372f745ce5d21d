// docker-modem (dockerode's transport) follows HTTP redirects from the engine to any host it is
// told, on a fresh request with no 'error' listener: an image reference with "../" segments made
// dockerd answer 301 to another host:port, the core connected there, and a refused connection
// killed the process. The Engine API never redirects a valid request, so redirects are refused:
// the original request fails with an ordinary (handled) error instead.
import modemHttp from 'docker-modem/lib/http.js';

modemHttp.maxRedirects = 0;
