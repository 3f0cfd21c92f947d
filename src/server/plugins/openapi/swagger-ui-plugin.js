/*
 * topicgate's additions to Swagger UI at /docs: browser code, served as it is (plugins/openapi.ts loads it as a
 * theme script after swagger-ui-bundle.js, same origin, so the page's CSP stays `script-src 'self'`), with no
 * build step. The page's initializer passes `window.topicgateSwaggerUi` as its only plugin, so this plugin brings
 * back Swagger UI's default one (DownloadUrl) beside its own.
 */
window.topicgateSwaggerUi = (system) => {
  const React = system.React;
  const responseBody = (Original, sys) => (props) => {
    const type = String(props.contentType || '').toLowerCase();
    // JSON and NDJSON are shown as the exact text received: Swagger UI would re-serialize JSON through
    // JSON.parse, rounding integers beyond 2^53, and cannot parse NDJSON at all.
    if (/^application\/(json|x-ndjson)/.test(type) && typeof props.content === 'string') {
      const ext = type.includes('ndjson') ? 'ndjson' : 'json';
      const Code = sys.getComponent('HighlightCode', true);
      return React.createElement(
        'div',
        null,
        React.createElement('h5', null, 'Response body'),
        React.createElement(
          Code,
          { language: ext === 'json' ? 'json' : null, downloadable: true, fileName: `response.${ext}`, canCopy: true },
          props.content,
        ),
      );
    }
    // Arrow is binary: offer it as a download.
    if (/^application\/vnd\.apache\.arrow/.test(type)) {
      const headers = { 'content-disposition': 'attachment; filename="response.arrow"', ...props.headers };
      return React.createElement(Original, { ...props, headers });
    }
    return React.createElement(Original, props);
  };
  return [window.SwaggerUIBundle.plugins.DownloadUrl, { wrapComponents: { responseBody } }];
};
