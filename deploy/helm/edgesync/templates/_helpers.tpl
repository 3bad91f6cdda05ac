{{/* The release name is the daemon's name: one release per (account, owner). */}}
{{- define "edgesync.fullname" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "edgesync.selectorLabels" -}}
app.kubernetes.io/name: edgesync
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "edgesync.labels" -}}
{{ include "edgesync.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "edgesync.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{/* The directory the daemon watches. */}}
{{- define "edgesync.manifestsPath" -}}
{{- if eq .Values.manifests.source "git" -}}
{{ printf "/git/current/%s" (.Values.manifests.git.path | trimPrefix "/") | trimSuffix "/" }}
{{- else -}}
/manifests
{{- end -}}
{{- end -}}

{{/* Pod Security "restricted" for every container; the root filesystem is read-only. */}}
{{- define "edgesync.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}

{{/*
The repository commit statuses go to: commitStatus.repo, or the path of
manifests.git.repo (git-sync fetches by URL: its checkout has no origin
remote to read). GitHub and Gitea name OWNER/REPO, the path's last two
segments; GitLab the whole path, nested groups included.
*/}}
{{- define "edgesync.commitStatusRepo" -}}
{{- if .Values.commitStatus.repo -}}
{{ .Values.commitStatus.repo }}
{{- else if eq .Values.manifests.source "git" -}}
{{- $withoutHost := regexReplaceAll "^[A-Za-z][A-Za-z0-9+.-]*://[^/]*/" .Values.manifests.git.repo "" -}}
{{- $path := regexReplaceAll "^[^/:]*:" $withoutHost "" | trimSuffix "/" | trimSuffix ".git" -}}
{{- if eq .Values.commitStatus.provider "gitlab" -}}
{{ $path }}
{{- else -}}
{{- $parts := splitList "/" $path -}}
{{ join "/" (slice $parts (sub (len $parts) 2 | max 0)) }}
{{- end -}}
{{- end -}}
{{- end -}}
