//! The rmcp handler: protocol plumbing only; tools, resources and the prompt live in their
//! own modules.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::frames::RefusedArguments;
use crate::prompt::{PROMPT_DESCRIPTION, PROMPT_NAME, USAGE};
use crate::registry::{self, ToolDef};
use crate::resources;
use crate::session::{Locator, Session};

/// The Remaind MCP server for one context folder. Cheap to clone (shared state).
#[derive(Debug, Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    session: Arc<Session>,
    tools: Vec<Arc<ToolDef>>,
}

impl Server {
    /// A server for the context folder `locator` finds (looked up on every call, so a folder
    /// initialized after the server started is found).
    pub fn new(locator: Locator) -> Self {
        Server {
            inner: Arc::new(Inner {
                session: Arc::new(Session::new(locator)),
                tools: registry::all().into_iter().map(Arc::new).collect(),
            }),
        }
    }

    /// The tools this server offers, as `tools/list` shows them.
    pub fn tools(&self) -> Vec<Tool> {
        self.inner.tools.iter().map(|t| t.tool.clone()).collect()
    }

    /// Runs blocking library work off the protocol task, so pings and cancellations are
    /// answered while a compaction runs.
    async fn blocking<T, F>(&self, f: F) -> Result<T, ErrorData>
    where
        F: FnOnce(&Session) -> T + Send + 'static,
        T: Send + 'static,
    {
        let session = Arc::clone(&self.inner.session);
        tokio::task::spawn_blocking(move || f(&session))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("remaind", env!("CARGO_PKG_VERSION")))
            .with_instructions(USAGE)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner
            .tools
            .iter()
            .find(|t| t.tool.name == name)
            .map(|t| t.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(RefusedArguments(message)) = context.extensions.get::<RefusedArguments>() {
            let content = vec![rmcp::model::ContentBlock::text(message.clone())];
            return Ok(rmcp::model::CallToolResult::error(content).into());
        }
        let Some(def) = self
            .inner
            .tools
            .iter()
            .find(|t| t.tool.name == request.name)
            .cloned()
        else {
            let names: Vec<&str> = self.inner.tools.iter().map(|t| &*t.tool.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; this server has: {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        let result = self.blocking(move |s| def.call(s, args)).await?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let contents = self.blocking(move |s| resources::read(s, &uri)).await??;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompt = Prompt::new(PROMPT_NAME, Some(PROMPT_DESCRIPTION), None);
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != PROMPT_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}`; this server has: {PROMPT_NAME}",
                    request.name
                ),
                None,
            ));
        }
        let message = PromptMessage::new_text(Role::User, USAGE);
        Ok(GetPromptResult::new(vec![message])
            .with_description(PROMPT_DESCRIPTION)
            .into())
    }
}
