"""Running Corazones: the Procfile's processes on one machine (``make serve``, the tests, the
load benchmark) and the service-manager units (deploy/systemd/, docs/DEPLOY.md)."""
