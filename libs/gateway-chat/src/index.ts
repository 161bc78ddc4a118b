export { gatewayChat, type GatewayChatOptions, type GatewayChatStream } from './gateway-chat.js';
