{{/* Chart name, overridable. */}}
{{- define "flowmesh.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Release-scoped base name. Kept to 36 characters so "<base>-flow-orchestrator-worker" still fits
the 63-character limit of Kubernetes names.
*/}}
{{- define "flowmesh.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 36 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 36 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 36 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "flowmesh.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of one process's objects: (dict "root" $ "process" "llm-gateway"). */}}
{{- define "flowmesh.processName" -}}
{{- printf "%s-%s" (include "flowmesh.fullname" .root) .process | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "flowmesh.commonLabels" -}}
helm.sh/chart: {{ include "flowmesh.chart" . }}
app.kubernetes.io/part-of: flowmesh
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
{{- end }}

{{/* Selector labels of one process: (dict "root" $ "process" "flow-orchestrator-worker"). */}}
{{- define "flowmesh.selectorLabels" -}}
app.kubernetes.io/name: {{ include "flowmesh.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .process }}
{{- end }}

{{- define "flowmesh.labels" -}}
{{ include "flowmesh.commonLabels" .root }}
{{ include "flowmesh.selectorLabels" . }}
{{- end }}

{{- define "flowmesh.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{- define "flowmesh.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "flowmesh.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "flowmesh.configMapName" -}}
{{- printf "%s-config" (include "flowmesh.fullname" .) }}
{{- end }}

{{- define "flowmesh.secretName" -}}
{{- if .Values.secret.existingSecret }}
{{- .Values.secret.existingSecret }}
{{- else }}
{{- printf "%s-secrets" (include "flowmesh.fullname" .) }}
{{- end }}
{{- end }}

{{/* DATABASE_URL from postgres.url, or from its parts (user and password percent-encoded; urlquery writes a space as "+", which a userinfo does not decode). */}}
{{- define "flowmesh.databaseUrl" -}}
{{- $pg := .Values.postgres }}
{{- if $pg.url }}
{{- $pg.url }}
{{- else }}
{{- $auth := urlquery $pg.user | replace "+" "%20" }}
{{- if $pg.password }}
{{- $auth = printf "%s:%s" $auth (urlquery $pg.password | replace "+" "%20") }}
{{- end }}
{{- $url := printf "postgres://%s@%s:%v/%s" $auth $pg.host $pg.port $pg.database }}
{{- if $pg.sslmode }}
{{- $url = printf "%s?sslmode=%s" $url $pg.sslmode }}
{{- end }}
{{- $url }}
{{- end }}
{{- end }}

{{/*
One container of the mesh. Arguments: (dict "root" $ "service" "flow-orchestrator"
"process" "flow-orchestrator-worker" "role" "worker" "spec" .Values.worker).
*/}}
{{- define "flowmesh.podTemplate" -}}
{{- $root := .root }}
{{- $values := $root.Values -}}
metadata:
  labels:
    {{- include "flowmesh.labels" . | nindent 4 }}
    {{- with $values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
    {{- if not $values.secret.existingSecret }}
    checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
    {{- end }}
    {{- if ($values.metrics | default dict).scrapeAnnotations }}
    {{- /* Every process serves Prometheus metrics on its HTTP port (deploy/dashboards query them). */}}
    prometheus.io/scrape: "true"
    prometheus.io/port: {{ .spec.port | quote }}
    prometheus.io/path: /metrics
    {{- end }}
    {{- with $values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "flowmesh.serviceAccountName" $root }}
  automountServiceAccountToken: false
  {{- with $values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml $values.podSecurityContext | nindent 4 }}
  terminationGracePeriodSeconds: {{ $values.terminationGracePeriodSeconds }}
  containers:
    - name: {{ .service }}
      image: {{ include "flowmesh.image" $root | quote }}
      imagePullPolicy: {{ $values.image.pullPolicy }}
      securityContext:
        {{- if and (eq .role "worker") (include "flowmesh.workerSandboxEnabled" $root) }}
        {{- include "flowmesh.workerSandboxSecurityContext" $root | nindent 8 }}
        {{- else }}
        {{- toYaml $values.securityContext | nindent 8 }}
        {{- end }}
      ports:
        - name: http
          containerPort: {{ .spec.port }}
          protocol: TCP
        {{- if and (eq .role "service") .spec.grpcPort }}
        - name: grpc
          containerPort: {{ .spec.grpcPort }}
          protocol: TCP
        {{- end }}
      envFrom:
        - configMapRef:
            name: {{ include "flowmesh.configMapName" $root }}
      env:
        - name: FLOWMESH_SERVICE
          value: {{ .service | quote }}
        - name: FLOWMESH_ROLE
          value: {{ .role | quote }}
        - name: PORT
          value: {{ .spec.port | quote }}
        {{- if and (eq .role "service") .spec.grpcPort }}
        - name: FLOWMESH_GRPC_PORT
          value: {{ .spec.grpcPort | quote }}
        {{- end }}
        - name: OTEL_SERVICE_NAME
          value: {{ .process | quote }}
        {{- if eq .role "worker" }}
        - name: FLOWMESH_SANDBOX_USER
          {{- if include "flowmesh.workerSandboxEnabled" $root }}
          value: {{ ($values.worker.sandbox | default dict).user | default "nobody" | quote }}
          {{- else }}
          value: "off"
          {{- end }}
        {{- end }}
        {{- if include "flowmesh.databaseRolesEnabled" $root }}
        {{- include "flowmesh.databaseRoleEnv" (dict "root" $root "service" .service "process" .process "role" .role) | nindent 8 }}
        {{- else }}
        - name: DATABASE_URL
          valueFrom:
            secretKeyRef:
              name: {{ include "flowmesh.secretName" $root }}
              key: DATABASE_URL
        {{- end }}
        {{- /* The first admin's token: the registry makes that admin; no other pod (no script) gets it. */}}
        {{- if eq .service "resource-registry" }}
        - name: FLOWMESH_ADMIN_TOKEN
          valueFrom:
            secretKeyRef:
              name: {{ include "flowmesh.secretName" $root }}
              key: FLOWMESH_ADMIN_TOKEN
        {{- end }}
        {{- if include "flowmesh.natsAuthEnabled" $root }}
        {{- /* The process's own NATS user; NATS_PASSWORD must come first for $(NATS_PASSWORD) to expand. */}}
        - name: NATS_PASSWORD
          valueFrom:
            secretKeyRef:
              name: {{ include "flowmesh.natsUsersSecretName" $root }}
              key: {{ .process }}
        - name: NATS_URL
          value: {{ include "flowmesh.natsUrlOf" (dict "root" $root "process" .process) | quote }}
        {{- end }}
        {{- /* Each key reaches only the service that uses it. */}}
        {{- $keys := dict "resource-registry" (list "FLOWMESH_SECRET_KEYS" "FLOWMESH_JOB_TOKEN_KEY") "flow-orchestrator" (list "FLOWMESH_RESUME_KEY" "FLOWMESH_JOB_TOKEN_STORE_KEYS") "agent-runtime" (list "FLOWMESH_JOB_TOKEN_STORE_KEYS") }}
        {{- range $key := get $keys .service | default list }}
        - name: {{ $key }}
          valueFrom:
            secretKeyRef:
              name: {{ include "flowmesh.secretName" $root }}
              key: {{ $key }}
        {{- end }}
        {{- if eq .role "worker" }}
        - name: FLOWMESH_WORKER_TAGS
          value: {{ join "," .spec.tags | quote }}
        {{- end }}
        {{- range $name, $value := merge (dict) (.spec.env | default dict) ($values.extraEnv | default dict) }}
        - name: {{ $name }}
          value: {{ $value | toString | quote }}
        {{- end }}
      livenessProbe:
        httpGet:
          path: {{ $values.probes.liveness.path }}
          port: http
        initialDelaySeconds: {{ $values.probes.liveness.initialDelaySeconds }}
        periodSeconds: {{ $values.probes.liveness.periodSeconds }}
        timeoutSeconds: {{ $values.probes.liveness.timeoutSeconds }}
        failureThreshold: {{ $values.probes.liveness.failureThreshold }}
      readinessProbe:
        httpGet:
          path: {{ $values.probes.readiness.path }}
          port: http
        initialDelaySeconds: {{ $values.probes.readiness.initialDelaySeconds }}
        periodSeconds: {{ $values.probes.readiness.periodSeconds }}
        timeoutSeconds: {{ $values.probes.readiness.timeoutSeconds }}
        failureThreshold: {{ $values.probes.readiness.failureThreshold }}
      startupProbe:
        httpGet:
          path: {{ $values.probes.startup.path }}
          port: http
        periodSeconds: {{ $values.probes.startup.periodSeconds }}
        failureThreshold: {{ $values.probes.startup.failureThreshold }}
      {{- with .spec.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
  volumes:
    - name: tmp
      emptyDir:
        {{- if .spec.scratchSizeLimit }}
        sizeLimit: {{ .spec.scratchSizeLimit }}
        {{- else }}
        sizeLimit: 256Mi
        {{- end }}
  {{- with $values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/*
NATS users per process (nats.auth). An upgrade with --reuse-values from a release older than
nats.auth has no such value: off, as that release was (and no nil pointer to render).
*/}}
{{- define "flowmesh.natsAuthEnabled" -}}
{{- if ((.Values.nats | default dict).auth | default dict).enabled }}true{{- end }}
{{- end }}

{{- define "flowmesh.natsAuthExistingSecret" -}}
{{- ((.Values.nats | default dict).auth | default dict).existingSecret }}
{{- end }}

{{/* The Secret holding each NATS user's password, a key per user (process name, flowmesh-cli). */}}
{{- define "flowmesh.natsUsersSecretName" -}}
{{- include "flowmesh.natsAuthExistingSecret" . | default (printf "%s-nats-users" (include "flowmesh.fullname" .)) }}
{{- end }}

{{- define "flowmesh.natsAuthorizationSecretName" -}}
{{- printf "%s-nats-authorization" (include "flowmesh.fullname" .) }}
{{- end }}

{{/*
The NATS users and their permissions from files/nats-permissions.json (generated from the
contracts by `npm run nats:sync`), with the release's subject prefix in place of the marker:
upper-cased in stream names, as the services name their streams.
*/}}
{{- define "flowmesh.natsUsers" -}}
{{- $streamPrefix := regexReplaceAll "[^A-Z0-9_-]" (upper .Values.subjectPrefix) "_" }}
{{- .Files.Get "files/nats-permissions.json" | replace "FMPREFIX" $streamPrefix | replace "fmprefix" .Values.subjectPrefix }}
{{- end }}

{{/* NATS_URL with the process's own user and its password from the environment (each URL of a list). */}}
{{- define "flowmesh.natsUrlOf" -}}
{{- $user := .process }}
{{- $urls := list }}
{{- range $url := splitList "," .root.Values.nats.url }}
{{- $urls = append $urls (regexReplaceAll "^([a-z]+)://([^@]*@)?" (trim $url) (printf "${1}://%s:$(NATS_PASSWORD)@" $user)) }}
{{- end }}
{{- join "," $urls }}
{{- end }}

{{/*
"true" when the worker runs scripts as worker.sandbox.user. Values kept from a release before this
option (`helm upgrade --reuse-values`) have no worker.sandbox: on, the safer default.
*/}}
{{- define "flowmesh.workerSandboxEnabled" -}}
{{- if (.Values.worker.sandbox | default (dict "enabled" true)).enabled }}true{{- end }}
{{- end }}

{{/*
The worker's container with the sandbox: root, to start scripts as the sandbox's user, with no
capability but those it needs for that (switch user, hand job directories over and clean them up,
signal the scripts' processes); the rest of securityContext as given.
*/}}
{{- define "flowmesh.workerSandboxSecurityContext" -}}
{{- $context := deepCopy .Values.securityContext }}
{{- $_ := set $context "runAsUser" 0 }}
{{- $_ := set $context "runAsGroup" 0 }}
{{- $_ := set $context "runAsNonRoot" false }}
{{- $_ := set $context "allowPrivilegeEscalation" false }}
{{- $_ := set $context "capabilities" (dict "drop" (list "ALL") "add" (list "SETUID" "SETGID" "CHOWN" "DAC_OVERRIDE" "FOWNER" "KILL")) }}
{{- toYaml $context }}
{{- end }}

{{/*
"true" when an autoscaler owns the replicas (the Deployment then leaves `replicas` out, so an
upgrade does not reset them). Values from a release before autoscaling (--reuse-values): off.
*/}}
{{- define "flowmesh.servicesAutoscaled" -}}
{{- if ((.Values.autoscaling | default dict).services | default dict).enabled }}true{{- end }}
{{- end }}

{{- define "flowmesh.workersAutoscaled" -}}
{{- if ((.Values.autoscaling | default dict).workers | default dict).enabled }}true{{- end }}
{{- end }}
