# The Deskbook single-user image for JupyterHub's DockerSpawner or KubeSpawner, and the kernel
# image for Enterprise Gateway's Kubernetes kernelspec (kernelspecs/deskbook_kubernetes): in a
# kernel pod, scripts/container-start.sh runs `deskbook gateway-kernel` instead of the CMD.
#
# Debian 12 with Node 20 (the official node image: Debian's own nodejs is 18), then the same
# scripts/setup-debian.sh the tests and CI run: the virtual desktop (Xvfb, D-Bus, AT-SPI,
# openbox), the apps, Jupyter, npm ci and the build. JupyterHub and JupyterLab come from the
# pinned test/python/requirements.txt, so the image gets the versions the Hub test ran.
#
# Not built here: the machines this was written on have no Docker engine. What the tests prove
# is the set-up script and the Hub configuration with local users (docs/scale-out.md).
#
#   docker build -t deskbook-singleuser .
FROM node:20-bookworm

WORKDIR /opt/deskbook
COPY . .
RUN bash scripts/setup-debian.sh \
 && python3 -m venv /opt/jupyter \
 && /opt/jupyter/bin/pip install --no-cache-dir -c test/python/requirements.txt jupyterhub jupyterlab notebook \
 && PATH=/opt/jupyter/bin:$PATH node dist/src/cli/main.js install --sys-prefix \
 && PATH=/opt/jupyter/bin:$PATH node dist/src/cli/main.js install --sys-prefix --per-kernel-desktop \
 && rm -rf /var/lib/apt/lists/* /root/.npm

# The node image's uid 1000, named as the Jupyter images name it; DESKBOOK_HOME is ~/.deskbook.
RUN usermod --login jovyan --move-home --home /home/jovyan node && groupmod --new-name jovyan node
USER jovyan
WORKDIR /home/jovyan
ENV PATH=/opt/jupyter/bin:$PATH
EXPOSE 8888
ENTRYPOINT ["/opt/deskbook/scripts/container-start.sh"]
CMD ["jupyterhub-singleuser"]
