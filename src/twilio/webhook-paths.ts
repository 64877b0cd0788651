/** Where Twilio posts a message's status as it moves on (set per message as its `StatusCallback`). */
export const SMS_STATUS_PATH = '/provider/twilio/sms-status';
/** Where Twilio posts a text someone sent to one of our numbers (set on the number or the Messaging Service). */
export const SMS_INBOUND_PATH = '/provider/twilio/sms-inbound';
