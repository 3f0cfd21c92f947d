/*
 * topicgate's additions to Swagger UI at /docs: browser code, served as it is (plugins/openapi.ts loads it as a
 * theme script after swagger-ui-bundle.js, same origin, so the page's CSP stays `script-src 'self'`). Plain
 * browser JavaScript with no build step. The page's initializer passes `window.topicgateSwaggerUi` as its only
 * plugin, so this plugin brings back Swagger UI's default one (DownloadUrl) beside its own.
 */
/* global window, SwaggerUIBundle */
window.topicgateSwaggerUi = function (system) {
  var React = system.React;
  function responseBody(Original, sys) {
    return function (props) {
      var type = String(props.contentType || '').toLowerCase();
      // JSON and NDJSON are shown as the exact text received: Swagger UI would re-serialize JSON through
      // JSON.parse, rounding integers beyond 2^53, and cannot parse NDJSON at all.
      if (/^application\/(json|x-ndjson)/.test(type) && typeof props.content === 'string') {
        var ext = type.indexOf('ndjson') >= 0 ? 'ndjson' : 'json';
        var Code = sys.getComponent('HighlightCode', true);
        return React.createElement(
          'div',
          null,
          React.createElement('h5', null, 'Response body'),
          React.createElement(
            Code,
            {
              language: ext === 'json' ? 'json' : null,
              downloadable: true,
              fileName: 'response.' + ext,
              canCopy: true,
            },
            props.content,
          ),
        );
      }
      // Arrow is binary: offer it as a download.
      if (/^application\/vnd\.apache\.arrow/.test(type)) {
        var headers = Object.assign({ 'content-disposition': 'attachment; filename="response.arrow"' }, props.headers);
        return React.createElement(Original, Object.assign({}, props, { headers: headers }));
      }
      return React.createElement(Original, props);
    };
  }
  return [SwaggerUIBundle.plugins.DownloadUrl, { wrapComponents: { responseBody: responseBody } }];
};
